import { BatchGetCommand, type BatchGetCommandOutput } from '@aws-sdk/lib-dynamodb';
import { mapWithConcurrency } from './concurrency';
import { UnprocessedItemsError } from './dependency-errors';
import type { ItemKey } from './table';
import type { Store } from './store';

/** DynamoDB's BatchGetItem takes at most 100 keys. */
const CHUNK = 100;
/**
 * Calls per chunk before giving up on keys DynamoDB keeps leaving unprocessed (throttling): with
 * the back-off below, about 3.5 s of trying, well inside a request's timeout.
 */
export const BATCH_GET_ATTEMPTS = 8;

const keyOf = (key: { pk?: unknown; sk?: unknown }) => `${String(key.pk)}\u0000${String(key.sk)}`;

/** Items by key, in the keys' order (missing ones left out), retrying what DynamoDB left unprocessed. */
export async function batchGet(store: Store, keyList: ItemKey[]): Promise<Record<string, unknown>[]> {
  const chunks = Array.from({ length: Math.ceil(keyList.length / CHUNK) }, (_, i) => keyList.slice(i * CHUNK, (i + 1) * CHUNK));
  const found = new Map<string, Record<string, unknown>>();
  await mapWithConcurrency(chunks, 8, async (chunk) => {
    let pending: Record<string, unknown>[] | undefined = chunk.map((key) => ({ ...key }));
    for (let attempt = 0; pending?.length; attempt++) {
      if (attempt >= BATCH_GET_ATTEMPTS) throw new UnprocessedItemsError(`BatchGetItem left ${pending.length} keys unprocessed after ${BATCH_GET_ATTEMPTS} attempts`);
      if (attempt) await new Promise((resolve) => setTimeout(resolve, Math.min(1_000, 25 * 2 ** attempt)));
      const answer: BatchGetCommandOutput = await store.db.send(new BatchGetCommand({ RequestItems: { [store.tableName]: { Keys: pending } } }));
      for (const item of answer.Responses?.[store.tableName] ?? []) found.set(keyOf(item), item);
      pending = answer.UnprocessedKeys?.[store.tableName]?.Keys;
    }
  });
  return keyList.map((key) => found.get(keyOf(key))).filter((item): item is Record<string, unknown> => !!item);
}
