import { BatchWriteCommand, type BatchWriteCommandOutput } from '@aws-sdk/lib-dynamodb';
import { mapWithConcurrency } from './concurrency';
import { UnprocessedItemsError } from './dependency-errors';
import type { Store } from './store';

/** DynamoDB's BatchWriteItem takes at most 25 requests, and no two for the same key. */
const CHUNK = 25;
/** Calls per chunk before giving up on items DynamoDB keeps leaving unprocessed (throttling), as `batchGet`. */
export const BATCH_WRITE_ATTEMPTS = 8;

const keyOf = (item: Record<string, unknown>) => `${String(item.pk)}\u0000${String(item.sk)}`;

/** One request of a BatchWriteItem: an item to put, or the key of one to delete. */
export type BatchWriteRequest = { put: Record<string, unknown> } | { delete: { pk: string; sk: string } };

/** Of the requests for one key, only the last: a batch, like a transaction, refuses two writes of one item. */
export const lastPerKey = (requests: readonly BatchWriteRequest[]): BatchWriteRequest[] => [...new Map(requests.map((request) => [keyOf('put' in request ? request.put : request.delete), request])).values()];

/**
 * Puts every item, 25 to a request, retrying what DynamoDB left unprocessed; throws when some are
 * still left after that. Items with the same key are put once (the last of them), which a single
 * request would refuse. Not atomic: for items whose put may be repeated (a retry puts the same
 * item again).
 */
export function batchPut(store: Store, items: readonly Record<string, unknown>[]): Promise<void> {
  return batchWrite(store, items.map((item) => ({ put: item })));
}

/**
 * Puts and deletes as `batchPut` puts: of the requests for one key only the last is made, so a put
 * followed by a delete of the same item deletes it.
 */
export async function batchWrite(store: Store, requests: readonly BatchWriteRequest[]): Promise<void> {
  const distinct = lastPerKey(requests);
  const chunks = Array.from({ length: Math.ceil(distinct.length / CHUNK) }, (_, i) => distinct.slice(i * CHUNK, (i + 1) * CHUNK));
  await mapWithConcurrency(chunks, 4, async (chunk) => {
    let pending: NonNullable<BatchWriteCommandOutput['UnprocessedItems']>[string] | undefined = chunk.map((request) => ('put' in request ? { PutRequest: { Item: request.put } } : { DeleteRequest: { Key: request.delete } }));
    for (let attempt = 0; pending?.length; attempt++) {
      if (attempt >= BATCH_WRITE_ATTEMPTS) throw new UnprocessedItemsError(`BatchWriteItem left ${pending.length} items unprocessed after ${BATCH_WRITE_ATTEMPTS} attempts`);
      if (attempt) await new Promise((resolve) => setTimeout(resolve, Math.min(1_000, 25 * 2 ** attempt)));
      const answer: BatchWriteCommandOutput = await store.db.send(new BatchWriteCommand({ RequestItems: { [store.tableName]: pending } }));
      pending = answer.UnprocessedItems?.[store.tableName];
    }
  });
}
