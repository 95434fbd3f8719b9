import { DeleteCommand, GetCommand, PutCommand } from '@aws-sdk/lib-dynamodb';
import * as z from '../../shared/zod';
import type { Store } from '../../shared/store';
import { keys } from '../../shared/table';
import { pendingPositionSchema, type PendingPosition } from '../messages/dispatch-repository';

/**
 * A run reads a bounded number of a shard's pending entries, oldest first. Behind a backlog larger
 * than that (a campaign's dispatches, `waiting` in the queue), what was claimed or lost after it
 * would never be read: each run would stop at the same entries. So a run that stops short of the
 * shard's end keeps where it stopped, and the next run reads on from there; one that reaches the
 * end drops it, and the next starts again from the oldest (decision 210).
 */

const positionItem = z.object({ after: pendingPositionSchema });

/** Where the last run stopped reading the shard; undefined: read it from the oldest entry. */
export async function reconcilerPosition(shard: number, store: Store): Promise<PendingPosition | undefined> {
  const { Item } = await store.db.send(new GetCommand({ TableName: store.tableName, Key: keys.reconcilerPosition(shard) }));
  return Item ? positionItem.parse(Item).after : undefined;
}

/** Keeps where this run stopped (`after`), or drops the position once a run read the shard to its end; writes nothing when neither changes it. */
export async function keepReconcilerPosition(shard: number, from: PendingPosition | undefined, after: PendingPosition | undefined, store: Store): Promise<void> {
  if (after) await store.db.send(new PutCommand({ TableName: store.tableName, Item: { ...keys.reconcilerPosition(shard), entity: 'reconcilerPosition', after } }));
  else if (from) await store.db.send(new DeleteCommand({ TableName: store.tableName, Key: keys.reconcilerPosition(shard) }));
}
