import { DynamoDBClient, ListTablesCommand } from '@aws-sdk/client-dynamodb';
import { ListQueuesCommand, SQSClient } from '@aws-sdk/client-sqs';
import { connect } from 'node:net';
import { networkInterfaces } from 'node:os';
import { startDynamoDbLocal } from '../../lib/local/dynamodb-local';

/**
 * Neither emulator checks credentials (an unsigned PutItem can create an API key), so both must be
 * reachable from this machine only: they answer on 127.0.0.1 and refuse on the machine's other
 * addresses. Checked for the test run's emulators (test/support/emulators-setup.mjs), and for
 * DynamoDB Local as `npm start` starts it (lib/local/dynamodb-local.ts). Both start DynamoDB Local
 * through lib/local/dynamodb-loopback.cjs and fauxqs through lib/local/fauxqs-loopback.mjs (which
 * jest, loading our code as CommonJS, can import only from the global setup: fauxqs is ESM-only).
 */
const credentials = { accessKeyId: 'local', secretAccessKey: 'local' };
const externalIPv4 = Object.values(networkInterfaces())
  .flat()
  .find((address) => address && address.family === 'IPv4' && !address.internal)?.address;

const portOf = (endpoint: string) => Number(new URL(endpoint).port);

/** Resolves with the connection's outcome: `connected`, or the error code (ECONNREFUSED, ...). */
const tryConnect = (host: string, port: number) =>
  new Promise<string>((resolve) => {
    const socket = connect({ host, port, timeout: 3_000 });
    socket.once('connect', () => {
      socket.destroy();
      resolve('connected');
    });
    socket.once('timeout', () => {
      socket.destroy();
      resolve('timeout');
    });
    socket.once('error', (error: NodeJS.ErrnoException) => resolve(error.code ?? error.message));
  });

async function answersDynamoDb(endpoint: string) {
  const client = new DynamoDBClient({ endpoint, region: 'local', credentials });
  try {
    return await client.send(new ListTablesCommand({ Limit: 1 }));
  } finally {
    client.destroy();
  }
}

async function answersSqs(endpoint: string) {
  const client = new SQSClient({ endpoint, region: 'local', credentials });
  try {
    return await client.send(new ListQueuesCommand({}));
  } finally {
    client.destroy();
  }
}

const refusalTitle = externalIPv4
  ? `refuses connections on this machine's non-loopback address ${externalIPv4}`
  : 'refuses connections on a non-loopback address (skipped: this machine has no non-loopback IPv4 address)';
const itRefuses = externalIPv4 ? it : it.skip;

describe.each([
  ['DynamoDB Local of the test run', () => process.env.TEST_DYNAMODB_ENDPOINT!, answersDynamoDb],
  ['SQS emulator of the test run', () => process.env.TEST_SQS_ENDPOINT!, answersSqs],
])('%s', (_name, endpointOf, answers) => {
  it('is at a 127.0.0.1 endpoint and answers there', async () => {
    expect(new URL(endpointOf()).hostname).toBe('127.0.0.1');
    await expect(answers(endpointOf())).resolves.toHaveProperty('$metadata.httpStatusCode', 200);
  });

  itRefuses(refusalTitle, async () => {
    expect(await tryConnect(externalIPv4!, portOf(endpointOf()))).toBe('ECONNREFUSED');
  });
});

describe('DynamoDB Local as `npm start` starts it', () => {
  let dynamodb: Awaited<ReturnType<typeof startDynamoDbLocal>> | undefined;
  beforeAll(async () => {
    dynamodb = await startDynamoDbLocal({ outlivesInterrupt: true });
  }, 60_000);
  afterAll(() => dynamodb?.stop());

  it('answers on 127.0.0.1', async () => {
    expect(new URL(dynamodb!.endpoint).hostname).toBe('127.0.0.1');
    await expect(answersDynamoDb(dynamodb!.endpoint)).resolves.toHaveProperty('$metadata.httpStatusCode', 200);
  });

  itRefuses(refusalTitle, async () => {
    expect(await tryConnect(externalIPv4!, portOf(dynamodb!.endpoint))).toBe('ECONNREFUSED');
  });

  // Ctrl+C reaches the whole group: the table must still answer the runtime's own stop, which ends it.
  it('outlives a Ctrl+C (SIGINT) and ends on its owner’s stop', async () => {
    process.kill(dynamodb!.process.pid!, 'SIGINT');
    await new Promise((resolve) => setTimeout(resolve, 1_000));
    await expect(answersDynamoDb(dynamodb!.endpoint)).resolves.toHaveProperty('$metadata.httpStatusCode', 200);
    await dynamodb!.stop();
    expect(dynamodb!.process.exitCode ?? dynamodb!.process.signalCode).not.toBeNull();
  });
});
