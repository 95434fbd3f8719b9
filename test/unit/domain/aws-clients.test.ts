import { createServer, type Socket } from 'node:net';
import { SendMessageCommand } from '@aws-sdk/client-sqs';
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

  it('the functions’ SQS client gives up on a queue that takes the connection and never answers, instead of holding a send until its function times out', async () => {
    const sockets: Socket[] = [];
    const silent = createServer((socket) => void sockets.push(socket));
    await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
    const { port } = silent.address() as { port: number };
    const endpoint = process.env.SQS_ENDPOINT;
    try {
      // The functions' client as a container builds it, its endpoint the silent queue.
      process.env.SQS_ENDPOINT = `http://127.0.0.1:${port}`;
      let functionsClient: typeof sqs | undefined;
      jest.isolateModules(() => ({ sqs: functionsClient } = jest.requireActual<{ sqs: typeof sqs }>('../../../lambdas/shared/clients')));
      const send = functionsClient!.send(new SendMessageCommand({ QueueUrl: `http://127.0.0.1:${port}/000000000000/dispatches`, MessageBody: '{}' }));
      await expect(send).rejects.toMatchObject({ name: 'TimeoutError' });
      expect(sockets.length).toBeGreaterThanOrEqual(1);
    } finally {
      if (endpoint === undefined) delete process.env.SQS_ENDPOINT;
      else process.env.SQS_ENDPOINT = endpoint;
      sockets.forEach((socket) => socket.destroy());
      await new Promise((resolve) => silent.close(resolve));
    }
  }, 20_000);
});
