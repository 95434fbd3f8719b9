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
});
