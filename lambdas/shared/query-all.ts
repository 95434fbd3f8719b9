import { paginateQuery, type QueryCommandInput } from '@aws-sdk/lib-dynamodb';
import type { Store } from './store';

/** Every item a Query matches, following LastEvaluatedKey; for small, bounded partitions only. */
export async function queryAll(store: Store, input: Omit<QueryCommandInput, 'TableName' | 'ExclusiveStartKey'>): Promise<Record<string, unknown>[]> {
  const items: Record<string, unknown>[] = [];
  for await (const page of paginateQuery({ client: store.db }, { ...input, TableName: store.tableName })) items.push(...(page.Items ?? []));
  return items;
}
