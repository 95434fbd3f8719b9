// Starts one DynamoDB Local and one SQS emulator for the whole run (docs/decisions.md 6: one instance per
// run, not per file), both bound to 127.0.0.1 by the modules the local runtime uses. Both the
// integration and e2e projects list this setup; jest runs project setups in one process, so a
// second call reuses the first's emulators. Workers inherit the endpoints through the environment.
// Plain ESM because fauxqs is ESM-only and jest loads .mjs natively.
import { startLoopbackDynamoDb } from '../../lib/local/dynamodb-loopback.cjs';
import { startLoopbackSqs } from '../../lib/local/fauxqs-loopback.mjs';

export default async function setup() {
  const state = (globalThis.__messagingEmulators ??= { users: 0 });
  state.users += 1;
  if (state.users > 1) return;

  // Every DynamoDB Local of the run (this one, and those test files start of their own) takes the
  // quick compiler only: a test run is short requests, not a server warmed for throughput
  // (lib/local/dynamodb-loopback.cjs; decision 125). Workers inherit it; the `npm start` test runs
  // as a newcomer does, with the JVM's default.
  process.env.DYNAMODB_LOCAL_JVM_OPTIONS ??= '-XX:TieredStopAtLevel=1';
  const dynamodb = await startLoopbackDynamoDb().catch((error) => {
    throw new Error(`${error.message} (is Java 17+ installed?)`);
  });
  const sqs = await startLoopbackSqs();

  state.dynamodb = dynamodb;
  state.sqs = sqs;
  process.env.TEST_DYNAMODB_ENDPOINT = dynamodb.endpoint;
  process.env.TEST_SQS_ENDPOINT = sqs.endpoint;
}
