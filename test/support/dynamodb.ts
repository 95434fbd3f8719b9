import { DeleteTableCommand, DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DeleteCommand } from '@aws-sdk/lib-dynamodb';
import { scanTable } from '../../lib/local/scan-table';
import { ensureTable } from '../../lib/local/bootstrap';
import { createStore, type Store } from '../../lambdas/shared/store';

/**
 * This test file's own table on the run's DynamoDB Local (TABLE_NAME is unique per file, see
 * env.ts), created from the same definition as the stack. Call in beforeAll; drop in afterAll.
 */
export async function createTestTable(): Promise<Store & { drop(): Promise<void>; scanAll(): Promise<Record<string, unknown>[]> }> {
  const endpoint = process.env.DYNAMODB_ENDPOINT;
  if (!endpoint) throw new Error('DYNAMODB_ENDPOINT is not set: run this file in the integration or e2e project');
  const tableName = process.env.TABLE_NAME!;
  const client = new DynamoDBClient({ endpoint, region: process.env.AWS_REGION! });
  await ensureTable(client, tableName);
  const store = createStore({ tableName, region: process.env.AWS_REGION!, endpoint });
  return {
    ...store,
    scanAll: () => scanAll(store),
    async drop() {
      await client.send(new DeleteTableCommand({ TableName: tableName }));
      client.destroy();
      store.db.destroy();
    },
  };
}

/** Every item of a store's table. Tests may scan: they read it all to prove what is (and is not) in it. */
export const scanAll = (store: Store): Promise<Record<string, unknown>[]> => scanTable(store);

/**
 * What DynamoDB's TTL does in the days after an item's `ttl` has passed: deletes it. DynamoDB Local
 * never does, so a test that must see what outlives an expiry calls this at the moment it imagines.
 */
export async function expireTtlItems(store: Store, now: Date): Promise<void> {
  for (const item of await scanAll(store)) {
    if (typeof item.ttl === 'number' && item.ttl < now.getTime() / 1000) {
      await store.db.send(new DeleteCommand({ TableName: store.tableName, Key: { pk: item.pk, sk: item.sk } }));
    }
  }
}
