import { QueryCommand, type QueryCommandInput } from '@aws-sdk/lib-dynamodb';
import type { Store } from './store';

/** Every item a Query matches, following LastEvaluatedKey; for small, bounded partitions only. */
export async function queryAll(store: Store, input: Omit<QueryCommandInput, 'TableName' | 'ExclusiveStartKey'>): Promise<Record<string, unknown>[]> {
  const items: Record<string, unknown>[] = [];
  let cursor: Record<string, unknown> | undefined;
  do {
    const page = await store.db.send(new QueryCommand({ ...input, TableName: store.tableName, ExclusiveStartKey: cursor }));
    items.push(...(page.Items ?? []));
    cursor = page.LastEvaluatedKey;
  } while (cursor);
  return items;
}
