import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { RateLimitedError } from '../../shared/errors';
import { keys } from '../../shared/table';
import { defaultStore } from '../../shared/default-store';
import type { Store } from '../../shared/store';
import { answeredBy } from '../../shared/answered-by';
import { isConditionFailed } from '../../shared/writes';
import { logger } from '../../shared/logger';

/**
 * The per-workspace send allowance (`sendsPerMinute`, fixed one-minute windows).
 *
 * Each container leases a small block of the current minute's allowance with one conditional ADD
 * on the workspace's counter and spends it locally, so the counter is written once per block
 * instead of once per send, and it can never pass the limit. The counter is not part of the send
 * transaction: every send of a workspace would touch it, and concurrent transactions on one item
 * cancel each other (docs/decisions.md). The cost of leasing: near the limit, a block leased by an
 * idle container goes unused, so a workspace may be held slightly under its limit, never over it.
 */
const leases = new Map<string, { minute: number; remaining: number }>();
/** One reservation per workspace at a time; concurrent sends wait for it instead of each leasing. */
const reserving = new Map<string, Promise<void>>();

/** A block is at most 1/20 of the minute's allowance (and at most 50 sends). */
export const leaseSize = (perMinute: number) => Math.max(1, Math.min(50, Math.floor(perMinute / 20)));

/** How long a refused send waits for its allowance to be given back before answering. */
const GIVE_BACK_WAIT_MS = 1_000;

/** One send taken from a workspace's minute: what `returnSendAllowance` gives back. */
export interface SendAllowance {
  workspaceId: string;
  minute: number;
}

/** Takes one send from the allowance, or throws 429 with the seconds until the next window. */
export async function takeSendAllowance(workspaceId: string, perMinute: number, now: Date, store: Store = defaultStore()): Promise<SendAllowance> {
  const minute = Math.floor(now.getTime() / 60_000);
  for (;;) {
    const lease = leases.get(workspaceId);
    if (lease && lease.minute === minute && lease.remaining > 0) {
      lease.remaining -= 1;
      return { workspaceId, minute };
    }
    const pending = reserving.get(workspaceId);
    if (pending) {
      await pending.catch(() => undefined);
      continue;
    }
    const reservation = leaseBlock(workspaceId, minute, perMinute, now, store);
    reserving.set(workspaceId, reservation);
    try {
      await reservation;
    } finally {
      reserving.delete(workspaceId);
    }
  }
}

/**
 * Gives back a send the request did not make (refused after the allowance was taken: a replay, a
 * duplicate, the queue or the table away), so `sendsPerMinute` counts accepted sends and a retry
 * is not refused 429 for its own failure. The unit goes back to the workspace's minute on the
 * table, where any function can lease it. Best effort: a table that does not answer keeps it,
 * as the slack an idle lease keeps.
 */
export async function returnSendAllowance({ workspaceId, minute }: SendAllowance, store: Store = defaultStore()): Promise<void> {
  try {
    // Bounded: the answer the caller waits for does not wait on a slow table for a courtesy.
    const giveBack = store.db.send(
      new UpdateCommand({
        TableName: store.tableName,
        Key: keys.sendRate(workspaceId, minute),
        UpdateExpression: 'ADD #count :minusOne',
        ConditionExpression: '#count > :zero',
        ExpressionAttributeNames: { '#count': 'count' },
        ExpressionAttributeValues: { ':minusOne': -1, ':zero': 0 },
      }),
    );
    await answeredBy(giveBack, Date.now() + GIVE_BACK_WAIT_MS);
  } catch (error) {
    if (!isConditionFailed(error)) logger.warn('Could not give back a send allowance', { workspaceId, error: error as Error });
  }
}

async function leaseBlock(workspaceId: string, minute: number, perMinute: number, now: Date, store: Store): Promise<void> {
  const size = leaseSize(perMinute);
  // Near the limit a whole block may not fit; a single send still might.
  for (const block of size > 1 ? [size, 1] : [1]) {
    if (await reserve(workspaceId, minute, block, perMinute, store)) {
      const lease = leases.get(workspaceId);
      if (lease && lease.minute === minute) lease.remaining += block;
      else leases.set(workspaceId, { minute, remaining: block });
      return;
    }
  }
  throw new RateLimitedError(Math.max(1, Math.ceil(((minute + 1) * 60_000 - now.getTime()) / 1000)));
}

async function reserve(workspaceId: string, minute: number, block: number, perMinute: number, store: Store): Promise<boolean> {
  try {
    await store.db.send(
      new UpdateCommand({
        TableName: store.tableName,
        Key: keys.sendRate(workspaceId, minute),
        UpdateExpression: 'ADD #count :block SET entity = :entity, #ttl = :ttl',
        ConditionExpression: 'attribute_not_exists(#count) OR #count <= :ceiling',
        ExpressionAttributeNames: { '#count': 'count', '#ttl': 'ttl' },
        ExpressionAttributeValues: { ':block': block, ':ceiling': perMinute - block, ':entity': 'sendRate', ':ttl': (minute + 2) * 60 },
      }),
    );
    return true;
  } catch (error) {
    if (isConditionFailed(error)) return false;
    throw error;
  }
}

export const clearSendAllowanceLeases = () => {
  leases.clear();
  reserving.clear();
};
