import { createHash, randomBytes } from 'node:crypto';
import * as z from '../../shared/zod';
import type { ConversationMessage } from '../conversations/conversation-item';
import { conversationOf } from '../conversations/conversation-item';
import { toMessageStatusResource, type Dispatch } from '../messages/dispatch';
import type { Template } from '../templates/template';
import { webhookEventTypes, type WebhookEventType } from './event-types';
import type { marketingOptOutData, messageReceivedData, templateStatusData, testEventData } from './event-schemas';

/**
 * Events as receivers get them (docs/api.md#webhook-events): the body of each POST, built here
 * once, when the change that makes it is written, and never again; a retry or a resend posts the
 * same bytes under the same `webhook-id`.
 */

/** Sent only by the test route (POST /v1/webhook-endpoints/{id}/test), whatever the endpoint subscribes to. */
export const TEST_EVENT_TYPE = 'webhook.test';

/** `evt_`, then 12 hex digits of the milliseconds it was made at and 16 more: ids sort by time. */
export const EVENT_ID_PATTERN = /^evt_[0-9a-f]{28}$/;

export const webhookEventSchema = z.object({
  id: z.string().check(z.regex(EVENT_ID_PATTERN)),
  type: z.enum([...webhookEventTypes, TEST_EVENT_TYPE]),
  timestamp: z.iso.datetime(),
  data: z.record(z.string(), z.unknown()),
});
export type WebhookEvent = z.output<typeof webhookEventSchema>;

const EVENT_ID = /^evt_([0-9a-f]{12})/;

/**
 * `evt_` + the milliseconds of `now` in 12 hex digits + 16 random hex digits: ids sort by the time
 * they were made, so a deliveries list sorted by id is newest first and "everything since" is a
 * range of ids.
 */
export function newEventId(now: Date): string {
  return `evt_${msHex(now)}${randomBytes(8).toString('hex')}`;
}

/**
 * The id of the event of one change of a dispatch: the time part as `newEventId`'s, the rest from
 * the dispatch and its `sequence`, so the same change, published again (a stream batch retried),
 * keeps its id, which receivers de-duplicate on.
 */
export function changeEventId(dispatchId: string, sequence: number, changedAt: Date): string {
  return `evt_${msHex(changedAt)}${createHash('sha256').update(`${dispatchId}#${sequence}`).digest('hex').slice(0, 16)}`;
}

/** The smallest event id made at or after `since`. */
export const firstEventIdAt = (since: Date): string => `evt_${msHex(since)}`;

/** When the event with this id was made; undefined for an id not ours. */
export function eventIdTime(eventId: string): Date | undefined {
  const match = EVENT_ID.exec(eventId);
  return match ? new Date(parseInt(match[1]!, 16)) : undefined;
}

const msHex = (at: Date) => Math.max(0, at.getTime()).toString(16).padStart(12, '0');

/** An event of a type endpoints subscribe to: what the outbox carries. */
export type SubscribableEvent = WebhookEvent & { type: WebhookEventType };

const event = <T extends WebhookEvent['type']>(type: T, data: Record<string, unknown>, now: Date): WebhookEvent & { type: T } => ({
  id: newEventId(now),
  type,
  timestamp: now.toISOString(),
  data,
});

/**
 * `message.status.updated`: `data` is the body GET /v1/messages/{dispatchId} answers after the
 * change, as the change's own write left the dispatch; `changedAt` is when it was made.
 */
export const messageStatusEvent = (after: Dispatch, changedAt: Date): SubscribableEvent => ({
  id: changeEventId(after.dispatchId, after.sequence, changedAt),
  type: 'message.status.updated',
  timestamp: changedAt.toISOString(),
  data: toMessageStatusResource(after),
});

/**
 * `message.received`: the customer's message as GET /v1/conversations/{id}/messages lists it,
 * and its conversation's id.
 */
export function messageReceivedEvent(message: ConversationMessage, now: Date): SubscribableEvent {
  return event(
    'message.received',
    {
      conversationId: conversationOf(message),
      message: {
        id: message.messageId,
        direction: message.direction,
        type: message.type,
        text: message.text,
        payload: message.payload ?? null,
        media: message.media ?? null,
        reaction: null,
        dispatchId: null,
        status: null,
        readAt: null,
        createdAt: message.createdAt,
      },
      contact: { phone: message.contactPhone, userId: message.contactUserId ?? null, name: message.contactName },
    } satisfies z.output<typeof messageReceivedData>,
    now,
  );
}

/** `template.status.updated`: the template's new status and the one it left. */
export function templateStatusEvent(template: Template, previousStatus: string, now: Date): SubscribableEvent {
  return event(
    'template.status.updated',
    { templateId: template.id, displayName: template.displayName, language: template.language, category: template.category ?? null, status: template.status, previousStatus } satisfies z.output<typeof templateStatusData>,
    now,
  );
}

/**
 * What a `marketing_opt_out.updated` event says: the number (E.164), whether it is now opted out,
 * who changed it (`button`, the customer's tap; `whatsapp`, their preference in WhatsApp, or a
 * marketing message refused for it; `admin`, an operator), and when they made the change.
 */
export type MarketingOptOutChange = z.output<typeof marketingOptOutData>;

/** `marketing_opt_out.updated`: a number's opt-out of the workspace's marketing messages recorded or lifted. */
export const marketingOptOutEvent = (change: MarketingOptOutChange, now: Date): SubscribableEvent => event('marketing_opt_out.updated', { ...change }, now);

/** The test route's event: nothing changed, the receiver sees what a delivery looks like. */
export const testEvent = (endpointId: string, now: Date): WebhookEvent => event(TEST_EVENT_TYPE, { endpointId, message: 'A test event from the messaging API' } satisfies z.output<typeof testEventData>, now);
