import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { dynamo } from './clients';
import { required } from './config';

/** Where repositories read and write: a document client and the table it targets. */
export interface Store {
  db: DynamoDBDocumentClient;
  tableName: string;
}

let fromConfig: Store | undefined;

/** The function's own table, from TABLE_NAME; resolved on first use, then reused. */
export function defaultStore(): Store {
  fromConfig ??= { db: dynamo, tableName: required('TABLE_NAME') };
  return fromConfig;
}

/** A store for tools outside Lambda (admin CLI, local runtime, tests) with their own target. */
export function createStore(options: { tableName: string; region: string; endpoint?: string }): Store {
  return {
    db: DynamoDBDocumentClient.from(new DynamoDBClient({ region: options.region, endpoint: options.endpoint }), {
      marshallOptions: { removeUndefinedValues: true },
    }),
    tableName: options.tableName,
  };
}
