import { paginateQuery, QueryCommand, type QueryCommandInput } from '@aws-sdk/lib-dynamodb';
import type { Store } from './store';

/** Every item a Query matches, following LastEvaluatedKey; for small, bounded partitions only. */
export async function queryAll(store: Store, input: Omit<QueryCommandInput, 'TableName' | 'ExclusiveStartKey'>): Promise<Record<string, unknown>[]> {
  const items: Record<string, unknown>[] = [];
  for await (const page of paginateQuery({ client: store.db }, { ...input, TableName: store.tableName })) items.push(...(page.Items ?? []));
  return items;
}

/**
 * A Query's items newest first (descending sort key), a page at a time, until `count` have been
 * read: for partitions too large to read whole, where the reader wants only the newest few.
 */
export async function* queryNewestFirst(store: Store, input: Omit<QueryCommandInput, 'TableName' | 'ExclusiveStartKey' | 'ScanIndexForward' | 'Limit'>, count: number): AsyncIterable<Record<string, unknown>[]> {
  if (count <= 0) return;
  let read = 0;
  let cursor: Record<string, unknown> | undefined;
  do {
    const page = await store.db.send(new QueryCommand({ ...input, TableName: store.tableName, ScanIndexForward: false, Limit: Math.min(1_000, count - read), ExclusiveStartKey: cursor }));
    const items = page.Items ?? [];
    read += items.length;
    if (items.length) yield items;
    cursor = page.LastEvaluatedKey;
  } while (cursor && read < count);
}
