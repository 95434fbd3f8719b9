// The part of autocannon's programmatic API the benchmarks use (the package ships no types).
declare module 'autocannon' {
  interface RawRequest {
    method?: string;
    path?: string;
    headers?: Record<string, string>;
    body?: string;
  }
  interface Options {
    url: string;
    connections: number;
    /** Stop after this many requests, or … */
    amount?: number;
    /** … after this many seconds. */
    duration?: number;
    timeout?: number;
    method?: string;
    headers?: Record<string, string>;
    body?: string;
    requests?: (RawRequest & {
      setupRequest?: (request: RawRequest) => RawRequest;
      onResponse?: (status: number, body: string) => void;
    })[];
  }
  interface Histogram {
    p50: number;
    p97_5: number;
    p99: number;
    max: number;
    average: number;
  }
  interface Result {
    duration: number;
    latency: Histogram;
    requests: Histogram & { total: number };
    errors: number;
    timeouts: number;
    non2xx: number;
    statusCodeStats: Record<string, { count: number }>;
  }
  function autocannon(options: autocannon.Options): Promise<autocannon.Result>;
  namespace autocannon {
    export type { Options, Result };
  }
  export default autocannon;
}
