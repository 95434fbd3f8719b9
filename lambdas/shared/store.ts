import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';

/** Where repositories read and write: a document client and the table it targets. */
export interface Store {
  db: DynamoDBDocumentClient;
  tableName: string;
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
  const client = new DynamoDBClient({
    region: options.region,
    ...(options.endpoint ? { endpoint: options.endpoint } : {}),
    ...(options.credentials ? { credentials: options.credentials } : {}),
  });
  return { db: DynamoDBDocumentClient.from(client, documentClientOptions), tableName: options.tableName };
}
