import * as z from '../../shared/zod';
import { batchWrite, type BatchWriteRequest } from '../../shared/batch-write';
import { defaultStore } from '../../shared/default-store';
import type { Store } from '../../shared/store';
import { parseItem } from '../../shared/stored-item';
import { keys } from '../../shared/table';
import { DELIVERY_EVENTS_MADE, EVENT_MOVED, type MovableEvent } from '../messages/dispatch';
import { deliveryEventStatuses, eventTimes, type DeliveryEventStatus } from './transitions';

/**
 * The delivery event items' write (decision 112): a status move names the events it makes on the
 * dispatch (`dispatch-repository.sequenceStep`), and the table's stream consumer writes them from
 * the move's record, one small put each, outside the move's transaction. Kept apart from
 * delivery-events.ts, whose reading parses phone numbers, which this consumer's bundle need not carry.
 */

/** A delivery event item, in its number's partition by time, for the delivery-status route (docs/api.md#delivery-status). */
export function deliveryEventItem(dispatch: { dispatchId: string; workspaceId: string; to: string }, status: DeliveryEventStatus, occurredAt: string, failureCode?: string): Record<string, unknown> {
  return {
    ...keys.deliveryEvent(dispatch.workspaceId, dispatch.to, occurredAt, dispatch.dispatchId, status),
    entity: 'deliveryEvent',
    dispatchId: dispatch.dispatchId,
    workspaceId: dispatch.workspaceId,
    phone: dispatch.to,
    status,
    occurredAt,
    ...(failureCode ? { failureCode } : {}),
  };
}

// Each event's time is the one the move kept for it.
const changeSchema = z.object({
  dispatchId: z.string().check(z.minLength(1)),
  workspaceId: z.string().check(z.minLength(1)),
  to: z.string().check(z.minLength(1)),
  sentAt: z.optional(z.string()),
  deliveredAt: z.optional(z.string()),
  failedAt: z.optional(z.string()),
  failureCode: z.optional(z.string()),
  [DELIVERY_EVENTS_MADE]: z.array(z.enum(deliveryEventStatuses)),
  [EVENT_MOVED.ACCEPTED]: z.optional(z.string()),
  [EVENT_MOVED.DELIVERED]: z.optional(z.string()),
});

/**
 * The writes of the delivery event items a dispatch change made, from its stream record's new
 * image (unmarshalled): a put each, and the delete of the event a correction of its time moved
 * from (`deliveredAt`'s DELIVERED, decision 200; `sentAt`'s ACCEPTED, decision 236). None for a
 * change that made none (a claim, Meta's pricing, a read receipt).
 */
export function deliveryEventsOfChange(newImage: Record<string, unknown>): BatchWriteRequest[] {
  if (!(DELIVERY_EVENTS_MADE in newImage)) return [];
  const change = parseItem(changeSchema, newImage, 'dispatch');
  const puts = change[DELIVERY_EVENTS_MADE].map((status): BatchWriteRequest => {
    const occurredAt = change[eventTimes[status]];
    if (!occurredAt) throw new Error(`Dispatch ${change.dispatchId} made a ${status} event but holds no ${eventTimes[status]}`);
    return { put: deliveryEventItem(change, status, occurredAt, status === 'REJECTED' ? change.failureCode : undefined) };
  });
  const deletes = (Object.keys(EVENT_MOVED) as MovableEvent[]).flatMap((status): BatchWriteRequest[] => {
    const movedFrom = change[EVENT_MOVED[status]];
    return movedFrom ? [{ delete: keys.deliveryEvent(change.workspaceId, change.to, movedFrom, change.dispatchId, status) }] : [];
  });
  // Before the puts: of the writes of one key only the last is made, and a move to the same time puts it back.
  return [...deletes, ...puts];
}

/**
 * Writes the events of a stream batch's changes together (and the other items their changes made,
 * such as a wamid's), settled per change: a write the table did not take fails every change of
 * the batch that had any, for the stream to hand them over again (a repeated put writes the same
 * item, a repeated delete deletes nothing).
 */
export async function recordDeliveryEvents(writesPerChange: readonly BatchWriteRequest[][], store: Store = defaultStore()): Promise<PromiseSettledResult<void>[]> {
  try {
    await batchWrite(store, writesPerChange.flat());
    return writesPerChange.map(() => ({ status: 'fulfilled', value: undefined }));
  } catch (reason) {
    return writesPerChange.map((writes) => (writes.length ? { status: 'rejected', reason } : { status: 'fulfilled', value: undefined }));
  }
}
