import './node-check.cjs';
import * as z from 'zod';
import { portSetting, readSettings } from '../lib/entry-settings';
import { LocalRuntimeError } from '../lib/local/dynamodb-local';
import { whenParentGone } from '../lib/local/parent-watch';
import { DEMO_SEED_PATH } from '../lib/local/paths';
import { assertPortFree, startLocalRuntime } from '../lib/local/runtime';
import { readSeed } from '../lib/local/seed-file';

/** `npm start`: the local runtime's interface (docs/decisions.md 42), read from the environment. */
const env = readSettings(
  'npm start',
  z.object({
    PORT: portSetting(3000),
    MESSAGING_SEED: z.string().min(1).optional(),
    MESSAGING_DATA_DIR: z.string().min(1).optional(),
  }),
);

async function main(): Promise<void> {
  const seedPath = env.MESSAGING_SEED ?? DEMO_SEED_PATH;
  const seed = readSeed(seedPath);
  if (env.PORT) await assertPortFree(env.PORT, '127.0.0.1');
  console.log('Starting DynamoDB Local, the SQS emulator and the API…');
  const runtime = await startLocalRuntime({ port: env.PORT, seedPath, isolateInvocations: true, ...(env.MESSAGING_DATA_DIR ? { dataDir: env.MESSAGING_DATA_DIR } : {}) });

  let stopping = false;
  const shutdown = (signal: string) => {
    if (stopping) return;
    stopping = true;
    console.log(`${signal}: stopping…`);
    runtime.stop().then(
      () => process.exit(0),
      (error: unknown) => {
        console.error('Stop failed:', error);
        process.exit(1);
      },
    );
  };
  process.on('SIGINT', () => shutdown('SIGINT'));
  process.on('SIGTERM', () => shutdown('SIGTERM'));
  whenParentGone(() => shutdown('npm start ended'));

  const key = seed.workspaces[0]?.apiKeys[0];
  console.log(`\nMessaging API ready on ${runtime.url}  (data: ${env.MESSAGING_DATA_DIR ?? 'in memory'}, seed: ${seedPath})`);
  if (key) {
    console.log(`Demo API key (${seed.workspaces[0]!.id}, scopes ${key.scopes.join(' ')}): ${key.key}`);
    console.log(`  curl -s ${runtime.url}/v1/message-templates -H 'X-API-Key: ${key.key}'`);
  }
  console.log('Press Ctrl+C to stop.');
}

main().catch((error: unknown) => {
  if (error instanceof LocalRuntimeError) console.error(`npm start: ${error.message}`);
  else console.error('npm start failed:', error);
  process.exit(1);
});
