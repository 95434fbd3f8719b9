import { BatchWriteCommand, type BatchWriteCommandOutput } from '@aws-sdk/lib-dynamodb';
import { mapWithConcurrency } from './concurrency';
import type { Store } from './store';

/** DynamoDB's BatchWriteItem takes at most 25 requests, and no two for the same key. */
const CHUNK = 25;
/** Calls per chunk before giving up on items DynamoDB keeps leaving unprocessed (throttling), as `batchGet`. */
export const BATCH_WRITE_ATTEMPTS = 8;

const keyOf = (item: Record<string, unknown>) => `${String(item.pk)}\u0000${String(item.sk)}`;

/**
 * Puts every item, 25 to a request, retrying what DynamoDB left unprocessed; throws when some are
 * still left after that. Items with the same key are put once (the last of them), which a single
 * request would refuse. Not atomic: for items whose put may be repeated (a retry puts the same
 * item again).
 */
export async function batchPut(store: Store, items: readonly Record<string, unknown>[]): Promise<void> {
  const distinct = [...new Map(items.map((item) => [keyOf(item), item])).values()];
  const chunks = Array.from({ length: Math.ceil(distinct.length / CHUNK) }, (_, i) => distinct.slice(i * CHUNK, (i + 1) * CHUNK));
  await mapWithConcurrency(chunks, 4, async (chunk) => {
    let pending: NonNullable<BatchWriteCommandOutput['UnprocessedItems']>[string] | undefined = chunk.map((Item) => ({ PutRequest: { Item } }));
    for (let attempt = 0; pending?.length; attempt++) {
      if (attempt >= BATCH_WRITE_ATTEMPTS) throw new Error(`BatchWriteItem left ${pending.length} items unprocessed after ${BATCH_WRITE_ATTEMPTS} attempts`);
      if (attempt) await new Promise((resolve) => setTimeout(resolve, Math.min(1_000, 25 * 2 ** attempt)));
      const answer: BatchWriteCommandOutput = await store.db.send(new BatchWriteCommand({ RequestItems: { [store.tableName]: pending } }));
      pending = answer.UnprocessedItems?.[store.tableName];
    }
  });
}
