/**
 * @slow waits out the functions' SQS and DynamoDB clients' timeouts against a server that never answers, and a stall, at once (about 12 s).
 */
import { createServer, type Socket } from 'node:net';
import { SendMessageCommand } from '@aws-sdk/client-sqs';
import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { dynamo, sqs } from '../../../lambdas/shared/clients';
import { createStore } from '../../../lambdas/shared/store';
import { LOCAL_TABLE_REQUEST_TIMEOUT_MS } from '../../../lib/local/paths';

/** `identify()` names each middleware as `<name> - <step>`. */
const middlewareNames = (client: { middlewareStack: { identify(): string[] } }) => client.middlewareStack.identify().map((entry) => entry.split(' - ')[0]);

describe('the AWS clients the functions and the tools use', () => {
  const clients = [
    ['the functions’ DynamoDB document client', dynamo],
    ['the functions’ SQS client', sqs],
    ['a tool’s store', createStore({ tableName: 't', region: 'ap-southeast-3', endpoint: 'http://127.0.0.1:1' }).db],
  ] as const;

  it.each(clients)('%s carries no SDK call logger, which copies every call’s input and output for a no-op logger (decision 120)', (_name, client) => {
    const names = middlewareNames(client);
    expect(names).toContain('serializerMiddleware');
    expect(names).not.toContain('loggerMiddleware');
  });

  /**
   * The functions' clients, built as a container builds them (`variables` on top of the test's
   * environment), their `endpointVariable` a server that takes connections and answers each request
   * `answer` ms later, or never; `call` is made through them.
   */
  async function againstAServer<T>(
    endpointVariable: 'SQS_ENDPOINT' | 'DYNAMODB_ENDPOINT',
    settings: { answer: 'never' | { afterMs: number; body: string }; variables?: Record<string, string | undefined> },
    call: (clients: { dynamo: typeof dynamo; sqs: typeof sqs }, url: string) => Promise<T>,
  ): Promise<T> {
    const sockets: Socket[] = [];
    const timers: NodeJS.Timeout[] = [];
    const server = createServer((socket) => {
      sockets.push(socket);
      const { answer } = settings;
      if (answer === 'never') return;
      socket.once('data', () => {
        const response = `HTTP/1.1 200 OK\r\nContent-Type: application/x-amz-json-1.0\r\nContent-Length: ${Buffer.byteLength(answer.body)}\r\n\r\n${answer.body}`;
        timers.push(setTimeout(() => socket.write(response), answer.afterMs));
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const url = `http://127.0.0.1:${(server.address() as { port: number }).port}`;
    const variables = { ...settings.variables, [endpointVariable]: url };
    const before = Object.fromEntries(Object.keys(variables).map((name) => [name, process.env[name]]));
    const setAll = (values: Record<string, string | undefined>) =>
      Object.entries(values).forEach(([name, value]) => (value === undefined ? delete process.env[name] : (process.env[name] = value)));
    // Built and the environment restored in one synchronous step, so the tests below can wait at once.
    let functionsClients: { dynamo: typeof dynamo; sqs: typeof sqs } | undefined;
    try {
      setAll(variables);
      jest.isolateModules(() => (functionsClients = jest.requireActual<{ dynamo: typeof dynamo; sqs: typeof sqs }>('../../../lambdas/shared/clients')));
    } finally {
      setAll(before);
    }
    try {
      return await call(functionsClients!, url);
    } finally {
      timers.forEach(clearTimeout);
      sockets.forEach((socket) => socket.destroy());
      await new Promise((resolve) => server.close(resolve));
    }
  }

  /** A container's environment has no `DYNAMODB_REQUEST_TIMEOUT_MS`: the tests' own is the local runtime's. */
  const asDeployed = { DYNAMODB_REQUEST_TIMEOUT_MS: undefined };
  const anUpdate = new UpdateCommand({ TableName: 't', Key: { pk: 'DSP#1', sk: 'DSP' }, UpdateExpression: 'SET #s = :s', ExpressionAttributeNames: { '#s': 'status' }, ExpressionAttributeValues: { ':s': 'sent' } });

  it.concurrent('the functions’ SQS client gives up on a queue that takes the connection and never answers, instead of holding a send until its function times out', async () => {
    const call = againstAServer('SQS_ENDPOINT', { answer: 'never', variables: asDeployed }, (clients, url) => clients.sqs.send(new SendMessageCommand({ QueueUrl: `${url}/000000000000/dispatches`, MessageBody: '{}' })));
    await expect(call).rejects.toMatchObject({ name: 'TimeoutError' });
  }, 20_000);

  // A hung table call held a deliver batch until the function's timeout, and with it the verdicts
  // the batch had not written yet, which then could not go on the queue (decisions 161, 162).
  it.concurrent('the functions’ DynamoDB client gives up on a table that takes the connection and never answers, instead of holding a function until it times out', async () => {
    await expect(againstAServer('DYNAMODB_ENDPOINT', { answer: 'never', variables: asDeployed }, (clients) => clients.dynamo.send(anUpdate))).rejects.toMatchObject({ name: 'TimeoutError' });
  }, 20_000);

  // A 4,000-send chaos run gave up 158 stream records of the publisher: each call's three tries
  // timed out against a DynamoDB Local stalled by the burst, which would have answered (decision 166).
  it.concurrent('against DynamoDB Local, the local runtime’s table calls wait out a stall longer than DynamoDB’s 3 s', async () => {
    const variables = { DYNAMODB_REQUEST_TIMEOUT_MS: String(LOCAL_TABLE_REQUEST_TIMEOUT_MS) };
    const answered = againstAServer('DYNAMODB_ENDPOINT', { answer: { afterMs: 3_500, body: '{"Attributes":{"status":{"S":"sent"}}}' }, variables }, (clients) =>
      clients.dynamo.send(new UpdateCommand({ ...anUpdate.input, ReturnValues: 'ALL_NEW' })),
    );
    await expect(answered).resolves.toMatchObject({ Attributes: { status: 'sent' } });
  }, 20_000);
});
