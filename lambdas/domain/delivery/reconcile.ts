import { defaultQueue, defaultStore } from '../../shared/default-store';
import { dispatchQueueSettings } from '../../shared/dispatch-queue-settings';
import { logger } from '../../shared/logger';
import type { QueueTarget } from '../../shared/queue';
import type { Store } from '../../shared/store';
import { PENDING_SHARDS } from '../../shared/table';
import { enqueueDispatch } from '../messages/dispatch-queue';
import type { Dispatch } from '../messages/dispatch';
import { pendingDispatches, requeueChange } from '../messages/dispatch-repository';
import { STALE_ATTEMPT_MS } from './deliver-dispatch';
import { applyStatus, changeDispatch } from './dispatch-status';

/** A dispatch `queued` this long has likely lost its queue message (the gap between transaction and send). */
export const QUEUED_GRACE_MS = 2 * 60_000;
/**
 * A released attempt (the provider said "later") comes back with its queue message within its
 * back-off, and at the latest after the queue's visibility timeout (when shortening it failed).
 * Idle a minute past that, its message is gone: queue it again.
 */
export const RELEASED_GRACE_MS = (dispatchQueueSettings.visibilityTimeoutSeconds + 60) * 1000;
/** Work per run is bounded; what is left waits for the next run. */
const MAX_PER_SHARD = 200;

export interface ReconcileSummary {
  requeued: number;
  settledUnknown: number;
}

/**
 * Finds dispatches that stopped moving (docs/architecture.md#the-delivery-path): `queued` ones whose queue message never went
 * out are queued again; `processing` ones whose provider call died are settled as `unknown`
 * (never sent again). Reads only the sparse pending index, one Query per shard.
 */
export async function reconcile(now: Date, store: Store = defaultStore(), queue: QueueTarget = defaultQueue()): Promise<ReconcileSummary> {
  const summary: ReconcileSummary = { requeued: 0, settledUnknown: 0 };
  const cutoff = new Date(now.getTime() - QUEUED_GRACE_MS).toISOString();
  for (let shard = 0; shard < PENDING_SHARDS; shard++) {
    for (const dispatch of await pendingDispatches(shard, cutoff, MAX_PER_SHARD, store)) {
      const attemptAge = dispatch.attemptStartedAt ? now.getTime() - Date.parse(dispatch.attemptStartedAt) : 0;
      const idleFor = now.getTime() - Date.parse(dispatch.updatedAt);
      if (dispatch.status === 'processing' && dispatch.attemptStartedAt && attemptAge > STALE_ATTEMPT_MS) {
        if (await applyStatus(dispatch.dispatchId, { to: 'unknown', occurredAt: now.toISOString() }, store, dispatch)) summary.settledUnknown += 1;
      } else if (dispatch.status === 'queued' || (dispatch.status === 'processing' && !dispatch.attemptStartedAt && idleFor > RELEASED_GRACE_MS)) {
        if (await requeue(dispatch, now, store, queue)) summary.requeued += 1;
      }
    }
  }
  if (summary.requeued || summary.settledUnknown) logger.info('Reconciled stuck dispatches', { ...summary });
  return summary;
}

/** Moves the dispatch's pending entry forward first, so the next run does not queue it again. */
async function requeue(dispatch: Dispatch, now: Date, store: Store, queue: QueueTarget): Promise<boolean> {
  const { dispatchId, workspaceId, status } = dispatch;
  const moved = await changeDispatch(dispatchId, store, dispatch, (current, mode) => (current.status === status ? { dispatch: requeueChange(current, now, mode) } : undefined));
  if (!moved) return false;
  await enqueueDispatch({ dispatchId, workspaceId }, queue);
  return true;
}
