/**
 * @slow waits out the functions' SQS and DynamoDB clients' timeouts against a server that never answers (about 17 s).
 */
import { createServer, type Socket } from 'node:net';
import { SendMessageCommand } from '@aws-sdk/client-sqs';
import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { dynamo, sqs } from '../../../lambdas/shared/clients';
import { createStore } from '../../../lambdas/shared/store';

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
   * The functions' client for `service`, built as a container builds it, its endpoint a server that
   * takes connections and never answers; `call` is made through it, and must fail as timed out.
   */
  async function againstASilentServer(endpointVariable: 'SQS_ENDPOINT' | 'DYNAMODB_ENDPOINT', call: (clients: { dynamo: typeof dynamo; sqs: typeof sqs }, url: string) => Promise<unknown>) {
    const sockets: Socket[] = [];
    const silent = createServer((socket) => void sockets.push(socket));
    await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
    const url = `http://127.0.0.1:${(silent.address() as { port: number }).port}`;
    const endpoint = process.env[endpointVariable];
    try {
      process.env[endpointVariable] = url;
      let functionsClients: { dynamo: typeof dynamo; sqs: typeof sqs } | undefined;
      jest.isolateModules(() => (functionsClients = jest.requireActual<{ dynamo: typeof dynamo; sqs: typeof sqs }>('../../../lambdas/shared/clients')));
      await expect(call(functionsClients!, url)).rejects.toMatchObject({ name: 'TimeoutError' });
      expect(sockets.length).toBeGreaterThanOrEqual(1);
    } finally {
      if (endpoint === undefined) delete process.env[endpointVariable];
      else process.env[endpointVariable] = endpoint;
      sockets.forEach((socket) => socket.destroy());
      await new Promise((resolve) => silent.close(resolve));
    }
  }

  it('the functions’ SQS client gives up on a queue that takes the connection and never answers, instead of holding a send until its function times out', async () => {
    await againstASilentServer('SQS_ENDPOINT', (clients, url) => clients.sqs.send(new SendMessageCommand({ QueueUrl: `${url}/000000000000/dispatches`, MessageBody: '{}' })));
  }, 20_000);

  // A hung table call held a deliver batch until the function's timeout, and with it the verdicts
  // the batch had not written yet, which then could not go on the queue (decisions 161, 162).
  it('the functions’ DynamoDB client gives up on a table that takes the connection and never answers, instead of holding a function until it times out', async () => {
    await againstASilentServer('DYNAMODB_ENDPOINT', (clients) => clients.dynamo.send(new UpdateCommand({ TableName: 't', Key: { pk: 'DSP#1', sk: 'DSP' }, UpdateExpression: 'SET #s = :s', ExpressionAttributeNames: { '#s': 'status' }, ExpressionAttributeValues: { ':s': 'sent' } })));
  }, 20_000);
});
