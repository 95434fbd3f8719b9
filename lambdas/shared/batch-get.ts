import { BatchGetCommand, type BatchGetCommandOutput } from '@aws-sdk/lib-dynamodb';
import { mapWithConcurrency } from './concurrency';
import type { ItemKey } from './table';
import type { Store } from './store';

/** DynamoDB's BatchGetItem takes at most 100 keys. */
const CHUNK = 100;

/** Items by key, in the keys' order (missing ones left out), retrying what DynamoDB left unprocessed. */
export async function batchGet(store: Store, keyList: ItemKey[]): Promise<Record<string, unknown>[]> {
  const chunks = Array.from({ length: Math.ceil(keyList.length / CHUNK) }, (_, i) => keyList.slice(i * CHUNK, (i + 1) * CHUNK));
  const found = new Map<string, Record<string, unknown>>();
  await mapWithConcurrency(chunks, 8, async (chunk) => {
    let pending: Record<string, unknown>[] | undefined = chunk.map((key) => ({ ...key }));
    for (let attempt = 0; pending?.length; attempt++) {
      if (attempt) await new Promise((resolve) => setTimeout(resolve, Math.min(1_000, 25 * 2 ** attempt)));
      const answer: BatchGetCommandOutput = await store.db.send(new BatchGetCommand({ RequestItems: { [store.tableName]: { Keys: pending } } }));
      for (const item of answer.Responses?.[store.tableName] ?? []) found.set(`${item.pk as string}\u0000${item.sk as string}`, item);
      pending = answer.UnprocessedKeys?.[store.tableName]?.Keys;
    }
  });
  return keyList.map((key) => found.get(`${key.pk}\u0000${key.sk}`)).filter((item): item is Record<string, unknown> => !!item);
}
