import * as z from '../../shared/zod';
import { batchPut } from '../../shared/batch-write';
import { defaultStore } from '../../shared/default-store';
import type { Store } from '../../shared/store';
import { parseItem } from '../../shared/stored-item';
import { keys } from '../../shared/table';
import { DELIVERY_EVENTS_MADE } from '../messages/dispatch';
import { deliveryEventStatuses, type DeliveryEventStatus } from './transitions';

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
});
const timeOf = { ACCEPTED: 'sentAt', DELIVERED: 'deliveredAt', REJECTED: 'failedAt' } as const;

/**
 * The delivery event items a dispatch change made, from its stream record's new image
 * (unmarshalled); none for a change that made none (a claim, Meta's pricing, a read receipt).
 */
export function deliveryEventsOfChange(newImage: Record<string, unknown>): Record<string, unknown>[] {
  if (!(DELIVERY_EVENTS_MADE in newImage)) return [];
  const change = parseItem(changeSchema, newImage, 'dispatch');
  return change[DELIVERY_EVENTS_MADE].map((status) => {
    const occurredAt = change[timeOf[status]];
    if (!occurredAt) throw new Error(`Dispatch ${change.dispatchId} made a ${status} event but holds no ${timeOf[status]}`);
    return deliveryEventItem(change, status, occurredAt, status === 'REJECTED' ? change.failureCode : undefined);
  });
}

/**
 * Writes the events of a stream batch's changes together, settled per change: a put the table did
 * not take fails every change of the batch that had events, for the stream to hand them over again
 * (a repeated put writes the same item).
 */
export async function recordDeliveryEvents(itemsPerChange: readonly Record<string, unknown>[][], store: Store = defaultStore()): Promise<PromiseSettledResult<void>[]> {
  try {
    await batchPut(store, itemsPerChange.flat());
    return itemsPerChange.map(() => ({ status: 'fulfilled', value: undefined }));
  } catch (reason) {
    return itemsPerChange.map((items) => (items.length ? { status: 'rejected', reason } : { status: 'fulfilled', value: undefined }));
  }
}
