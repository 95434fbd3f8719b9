import { ScanCommand } from '@aws-sdk/lib-dynamodb';
import type { Store } from '../../lambdas/shared/store';

/**
 * Every item of the table, page by page, optionally filtered. For tools that prove what is (and is
 * not) in a table (tests, the load and chaos runs); no request path ever scans.
 */
export async function scanTable(store: Store, filter?: { expression: string; values: Record<string, unknown> }): Promise<Record<string, unknown>[]> {
  const items: Record<string, unknown>[] = [];
  let cursor: Record<string, unknown> | undefined;
  do {
    const page = await store.db.send(
      new ScanCommand({ TableName: store.tableName, ExclusiveStartKey: cursor, ...(filter ? { FilterExpression: filter.expression, ExpressionAttributeValues: filter.values } : {}) }),
    );
    items.push(...(page.Items ?? []));
    cursor = page.LastEvaluatedKey;
  } while (cursor);
  return items;
}
