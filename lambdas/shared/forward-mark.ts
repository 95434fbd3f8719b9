import type { Store } from './store';
import type { ItemKey } from './table';
import { writeIfAllowed, type Write } from './writes';

/**
 * A moment kept on an item that only moves forward (an ISO instant in one attribute). What the
 * provider's reports prove about a number (decision 63), when WhatsApp last held a template's
 * message (decision 148) and when a customer last resumed marketing messages (decision 151) are
 * kept so.
 */
export interface ForwardMark {
  entity: string;
  attribute: string;
  /**
   * A container writes the mark only when it moves by this much since the container last wrote
   * it, so a busy key costs a few writes a minute; the stored value is never further than this
   * behind the latest moment noted. 0: every later moment is written.
   */
  grainMs: number;
  /** The item expires this long after its moment (none: it stays). */
  ttlSeconds?: number;
  /**
   * Each write removes the item's `ttl`: for a mark that once expired and is now kept for good
   * (decision 212), so an item an earlier version wrote is not deleted by its old expiry.
   */
  dropsExpiry?: true;
}

/** The write that moves `mark` on `key` to `at`, refused when it is there or further already: for a transaction of its own. */
export function markForwardWrite(key: ItemKey, at: string, mark: ForwardMark): Write {
  const ttl = mark.ttlSeconds === undefined ? undefined : Math.floor(Date.parse(at) / 1000) + mark.ttlSeconds;
  const expiry = ttl !== undefined ? ', #ttl = :ttl' : mark.dropsExpiry ? ' REMOVE #ttl' : '';
  return {
    Update: {
      Key: key,
      UpdateExpression: `SET entity = :entity, #at = :at${expiry}`,
      ConditionExpression: 'attribute_not_exists(#at) OR #at < :at',
      ExpressionAttributeNames: { '#at': mark.attribute, ...(expiry ? { '#ttl': 'ttl' } : {}) },
      ExpressionAttributeValues: { ':entity': mark.entity, ':at': at, ...(ttl === undefined ? {} : { ':ttl': ttl }) },
    },
  };
}

/**
 * Moves `mark` on `key` to `at` unless it is there or further already. `written`, when given, is
 * what this container last wrote per key (the caller's module-level map, cleared with the
 * container's caches), which spares the writes within the mark's grain; without it every call writes.
 */
export async function moveMarkForward(store: Store, key: ItemKey, at: string, mark: ForwardMark, written?: Map<string, string>): Promise<void> {
  const id = `${key.pk} ${key.sk}`;
  const last = written?.get(id);
  if (last && Date.parse(at) - Date.parse(last) < mark.grainMs) return;
  // Another container already moved it further: nothing to do.
  await writeIfAllowed(store, markForwardWrite(key, at, mark));
  if (!written) return;
  if (written.size >= 10_000 && !last) written.clear();
  written.set(id, at);
}
