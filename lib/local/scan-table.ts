import { ScanCommand } from '@aws-sdk/lib-dynamodb';
import type { Store } from '../../lambdas/shared/store';

/**
 * Every item of the table, page by page, optionally filtered. For tools that prove what is (and is
 * not) in a table (tests, the load and chaos runs) and for the admin CLI's `workspace list`; no
 * request path ever scans. A filter still reads every item: `meter` adds up the read units paid.
 */
export async function scanTable(store: Store, filter?: { expression: string; values: Record<string, unknown> }, meter?: { readUnits: number }): Promise<Record<string, unknown>[]> {
  const items: Record<string, unknown>[] = [];
  let cursor: Record<string, unknown> | undefined;
  do {
    const page = await store.db.send(
      new ScanCommand({
        TableName: store.tableName,
        ExclusiveStartKey: cursor,
        ...(filter ? { FilterExpression: filter.expression, ExpressionAttributeValues: filter.values } : {}),
        ...(meter ? { ReturnConsumedCapacity: 'TOTAL' } : {}),
      }),
    );
    items.push(...(page.Items ?? []));
    if (meter) meter.readUnits += page.ConsumedCapacity?.CapacityUnits ?? 0;
    cursor = page.LastEvaluatedKey;
  } while (cursor);
  return items;
}
