import { CreateTableCommand, DescribeTableCommand, DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { startDynamoDbLocal, type DynamoDbLocal } from '../../lib/local/dynamodb-local';
import { createTableInput, ensureTable } from '../../lib/local/bootstrap';
import { tableDefinition } from '../../lambdas/shared/table';

/**
 * A local data directory (MESSAGING_DATA_DIR) outlives the code that made its table: `ensureTable`
 * brings a table kept from an older definition up to the current one, as a deploy would.
 */
// A DynamoDB Local of this file's own, as a kept data directory is: DynamoDB Local builds the two
// indexes one after the other, and on the run's shared instance, busy with the other files, that
// took 30 to 50 s where alone it takes two.
let dynamodb: DynamoDbLocal;
let client: DynamoDBClient;
const tableName = `${process.env.TABLE_NAME!}-kept`;

beforeAll(async () => {
  dynamodb = await startDynamoDbLocal();
  client = new DynamoDBClient({ endpoint: dynamodb.endpoint, region: process.env.AWS_REGION! });
}, 60_000);

afterAll(async () => {
  client?.destroy();
  await dynamodb?.stop();
});

it('gives a table kept from before the number and report entry indexes and the stream all three, and leaves its other indexes', async () => {
  const current = createTableInput(tableName);
  const added = ['gsi3', 'gsi4'];
  const old = {
    ...current,
    AttributeDefinitions: current.AttributeDefinitions!.filter((attribute) => !added.some((index) => attribute.AttributeName!.startsWith(index))),
    GlobalSecondaryIndexes: current.GlobalSecondaryIndexes!.filter((index) => !added.includes(index.IndexName!)),
    StreamSpecification: { StreamEnabled: false },
  };
  await client.send(new CreateTableCommand(old));

  await ensureTable(client, tableName);

  const { Table } = await client.send(new DescribeTableCommand({ TableName: tableName }));
  expect(Table!.StreamSpecification).toEqual({ StreamEnabled: true, StreamViewType: 'NEW_IMAGE' });
  expect(Table!.GlobalSecondaryIndexes!.map((index) => [index.IndexName, index.Projection]).sort()).toEqual([
    ['gsi1', { ProjectionType: 'ALL' }],
    ['gsi2', { ProjectionType: 'ALL' }],
    ['gsi3', { ProjectionType: 'KEYS_ONLY' }],
    ['gsi4', { ProjectionType: 'INCLUDE', NonKeyAttributes: [...tableDefinition.indexes.gsi4.nonKeyAttributes] }],
  ]);
}, 150_000);
