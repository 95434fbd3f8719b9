import * as z from '../../shared/zod';
import { parseItem } from '../../shared/stored-item';
import { keys } from '../../shared/table';
import type { Write } from '../../shared/writes';
import { webhookEventTypes } from './event-types';
import type { SubscribableEvent } from './webhook-event';

/**
 * The outbox item: one event, written in the transaction of the change it tells of, so an event
 * is never lost (the change committed) and never invented (it did not). The table's stream hands
 * its insert to the publisher (lambdas/domain/webhooks/publish-events.ts); nothing reads it
 * afterwards, so it expires after a day, time enough for an operator to look at one.
 */

export const OUTBOX_TTL_SECONDS = 24 * 60 * 60;

/** Marks outbox items in the stream: the stack's filter and the local publisher match on it. */
export const OUTBOX_ENTITY = 'webhookOutbox';

/**
 * The stream records the publisher takes: inserts of outbox items. The stack's event source
 * filter is this pattern (lib/constructs/webhook-pipeline.ts), so no other write of the table
 * invokes the publisher; the local runtime applies `isOutboxInsert`.
 */
export const outboxStreamFilter = { eventName: ['INSERT'], dynamodb: { NewImage: { entity: { S: [OUTBOX_ENTITY] } } } } as const;

/** Whether a stream record (DynamoDB JSON) is an outbox insert: `outboxStreamFilter`, applied. */
export function isOutboxInsert(record: { eventName?: string; dynamodb?: { NewImage?: Record<string, { S?: string }> } }): boolean {
  return record.eventName === 'INSERT' && record.dynamodb?.NewImage?.entity?.S === OUTBOX_ENTITY;
}

/**
 * The outbox write of `event` for the workspace. The POST body is stored as the exact string
 * receivers get, so every attempt and every resend sends (and signs) the same bytes.
 */
export function outboxPut(workspaceId: string, event: SubscribableEvent): Write {
  return {
    Put: {
      Item: {
        ...keys.webhookOutbox(event.id),
        entity: OUTBOX_ENTITY,
        workspaceId,
        eventId: event.id,
        type: event.type,
        payload: JSON.stringify(event),
        ttl: Math.floor(Date.parse(event.timestamp) / 1000) + OUTBOX_TTL_SECONDS,
      },
    },
  };
}

const storedOutboxSchema = z.object({
  entity: z.literal(OUTBOX_ENTITY),
  workspaceId: z.string().check(z.minLength(1)),
  eventId: z.string(),
  type: z.enum(webhookEventTypes),
  payload: z.string(),
});

/** An event the outbox holds: its workspace, its id and type, and the POST body. */
export type OutboxEvent = Omit<z.output<typeof storedOutboxSchema>, 'entity'>;

/** An outbox item (as the stream's new image gives it, unmarshalled). */
export function toOutboxEvent(item: Record<string, unknown>): OutboxEvent {
  const { workspaceId, eventId, type, payload } = parseItem(storedOutboxSchema, item, 'webhook outbox item');
  return { workspaceId, eventId, type, payload };
}
