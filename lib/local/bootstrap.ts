import {
  CreateTableCommand,
  DescribeTableCommand,
  ResourceNotFoundException,
  UpdateTableCommand,
  UpdateTimeToLiveCommand,
  type CreateTableCommandInput,
  type DynamoDBClient,
} from '@aws-sdk/client-dynamodb';
import { tableDefinition, type IndexDefinition, type IndexName } from '../../lambdas/shared/table';
const indexList = Object.entries(tableDefinition.indexes) as [IndexName, IndexDefinition][];

const indexInput = ([name, index]: [IndexName, IndexDefinition]) => ({
  IndexName: name,
  KeySchema: [
    { AttributeName: index.partitionKey, KeyType: 'HASH' as const },
    { AttributeName: index.sortKey, KeyType: 'RANGE' as const },
  ],
  Projection: { ProjectionType: index.projection, ...(index.projection === 'INCLUDE' ? { NonKeyAttributes: [...index.nonKeyAttributes] } : {}) },
});

/** CreateTable input built from the same definition as the CDK table. */
export function createTableInput(tableName: string): CreateTableCommandInput {
  const { partitionKey, sortKey, streamView } = tableDefinition;
  return {
    TableName: tableName,
    BillingMode: 'PAY_PER_REQUEST',
    AttributeDefinitions: [partitionKey, sortKey, ...indexList.flatMap(([, index]) => [index.partitionKey, index.sortKey])].map((name) => ({
      AttributeName: name,
      AttributeType: 'S',
    })),
    KeySchema: [
      { AttributeName: partitionKey, KeyType: 'HASH' },
      { AttributeName: sortKey, KeyType: 'RANGE' },
    ],
    GlobalSecondaryIndexes: indexList.map(indexInput),
    StreamSpecification: { StreamEnabled: true, StreamViewType: streamView },
  };
}

/**
 * Creates the table (and its TTL) unless it exists, as it does when MESSAGING_DATA_DIR is reused;
 * a table kept from before the webhook outbox gets its stream, and one kept from before an index
 * gets the index (DynamoDB fills it from the items already there).
 */
export async function ensureTable(client: DynamoDBClient, tableName: string): Promise<void> {
  try {
    const { Table } = await client.send(new DescribeTableCommand({ TableName: tableName }));
    if (!Table?.StreamSpecification?.StreamEnabled) {
      await client.send(new UpdateTableCommand({ TableName: tableName, StreamSpecification: { StreamEnabled: true, StreamViewType: tableDefinition.streamView } }));
    }
    const present = new Set((Table?.GlobalSecondaryIndexes ?? []).map((index) => index.IndexName));
    for (const [name, index] of indexList) {
      if (present.has(name)) continue;
      // DynamoDB builds one new index of a table at a time, as a deploy adds one per update.
      await untilIndexesActive(client, tableName);
      await client.send(
        new UpdateTableCommand({
          TableName: tableName,
          AttributeDefinitions: [index.partitionKey, index.sortKey].map((attribute) => ({ AttributeName: attribute, AttributeType: 'S' })),
          GlobalSecondaryIndexUpdates: [{ Create: indexInput([name, index]) }],
        }),
      );
    }
    await untilIndexesActive(client, tableName);
    return;
  } catch (error) {
    if (!(error instanceof ResourceNotFoundException)) throw error;
  }
  await client.send(new CreateTableCommand(createTableInput(tableName)));
  await client.send(
    new UpdateTimeToLiveCommand({
      TableName: tableName,
      TimeToLiveSpecification: { AttributeName: tableDefinition.timeToLiveAttribute, Enabled: true },
    }),
  );
}

/** Waits until no index of the table is being built: seconds on DynamoDB Local, longer beside other work or with many items. */
async function untilIndexesActive(client: DynamoDBClient, tableName: string, timeoutMs = 120_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const { Table } = await client.send(new DescribeTableCommand({ TableName: tableName }));
    if ((Table?.GlobalSecondaryIndexes ?? []).every((index) => index.IndexStatus === 'ACTIVE')) return;
    if (Date.now() >= deadline) throw new Error(`Indexes of ${tableName} still being built after ${timeoutMs / 1000} s`);
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
}
