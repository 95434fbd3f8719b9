import type { ChildProcess } from 'node:child_process';

export interface LoopbackDynamoDb {
  /** `http://127.0.0.1:<port>` */
  endpoint: string;
  process: ChildProcess;
  /** SIGTERM, then SIGKILL after 3 s; resolves once the process has exited. */
  stop(): Promise<void>;
}

/** Starts DynamoDB Local bound to 127.0.0.1, without telemetry; resolves once it answers. */
export function startLoopbackDynamoDb(options?: {
  port?: number;
  dataDir?: string;
  /** Ignore SIGINT (a terminal's Ctrl+C to the group), so its owner stops it last. */
  outlivesInterrupt?: boolean;
}): Promise<LoopbackDynamoDb>;
