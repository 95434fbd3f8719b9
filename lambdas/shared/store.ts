import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';

/** Where repositories read and write: a document client and the table it targets. */
export interface Store {
  db: DynamoDBDocumentClient;
  tableName: string;
}

/**
 * The client without the SDK's call logger. That middleware builds a redacted copy of each call's
 * input and output for the client's logger even when the logger is the SDK's no-op, as ours always
 * is: every call paid for a copy nobody read, more the larger the page (decision 120).
 */
export function withoutCallLog<Client extends { middlewareStack: { remove(name: string): boolean } }>(client: Client): Client {
  client.middlewareStack.remove('loggerMiddleware');
  return client;
}

/** Same marshalling everywhere: optional fields are simply left out of items. */
export const documentClientOptions = { marshallOptions: { removeUndefinedValues: true } };

/**
 * A store for tools outside Lambda (admin CLI, local runtime, tests) with a target of their own.
 * Free of configuration on purpose: importing it never freezes the environment.
 */
export function createStore(options: {
  tableName: string;
  region: string;
  endpoint?: string;
  credentials?: { accessKeyId: string; secretAccessKey: string };
}): Store {
  const client = withoutCallLog(
    new DynamoDBClient({
      region: options.region,
      ...(options.endpoint ? { endpoint: options.endpoint } : {}),
      ...(options.credentials ? { credentials: options.credentials } : {}),
    }),
  );
  return { db: DynamoDBDocumentClient.from(client, documentClientOptions), tableName: options.tableName };
}
