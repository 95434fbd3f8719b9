// The part of autocannon's programmatic API that bench/load.ts uses (the package ships no types).
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
    amount: number;
    timeout?: number;
    requests: (RawRequest & {
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
  }
  function autocannon(options: autocannon.Options): Promise<autocannon.Result>;
  namespace autocannon {
    export type { Options, Result };
  }
  export default autocannon;
}
