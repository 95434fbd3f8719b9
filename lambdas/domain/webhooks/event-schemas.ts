import * as z from '../../shared/zod';
import { conversationMessageSchema } from '../conversations/read-conversations';
import { messageStatusSchema } from '../messages/dispatch';
import { templateCategories } from '../workspaces/workspace';
import { instant } from '../time/instant';
import type { WebhookEventType } from './event-types';
import { EVENT_ID_PATTERN, TEST_EVENT_TYPE } from './webhook-event';

/**
 * The body of each event as integrations' endpoints receive it (docs/api.md#webhook-events), for
 * the OpenAPI document's `webhooks` and the tests that hold the posted bodies to it. The builders
 * in ./webhook-event.ts are typed by these schemas' outputs, so the two cannot drift apart; no
 * function runs them (a bundle imports only their types).
 */

const envelope = <T extends string, D extends z.ZodMiniType>(type: T, data: D) =>
  z.object({
    id: z.string().check(z.regex(EVENT_ID_PATTERN)).register(z.globalRegistry, { description: 'The event id, also the `webhook-id` header: the same on every retry and resend, so a receiver de-duplicates on it.' }),
    type: z.literal(type),
    timestamp: instant().register(z.globalRegistry, { description: 'When the change happened.' }),
    data,
  });

export const messageReceivedData = z.object({
  conversationId: z.guid(),
  message: conversationMessageSchema,
  contact: z.object({ phone: z.nullable(z.string()), userId: z.nullable(z.string()), name: z.nullable(z.string()) }),
});

export const templateStatusData = z.object({
  templateId: z.guid(),
  displayName: z.string(),
  language: z.string(),
  category: z.nullable(z.enum(templateCategories)),
  status: z.string(),
  previousStatus: z.string(),
});

export const marketingOptOutData = z.object({
  /** E.164. */
  phone: z.string(),
  optedOut: z.boolean(),
  by: z.enum(['button', 'whatsapp', 'admin']),
  at: instant(),
});

export const testEventData = z.object({ endpointId: z.string(), message: z.string() });

/** Each event type's body and what it tells, in the order docs/api.md lists them. */
export const webhookEventBodies = {
  'message.status.updated': {
    summary: 'A change of a message’s status body',
    description: 'Every change of the body of GET /v1/messages/{dispatchId}: a status move, readAt, pricing, or the bookkeeping moves of updatedAt. `data` is exactly that body after the change; order events by its `sequence`.',
    schema: envelope('message.status.updated', messageStatusSchema),
  },
  'message.received': {
    summary: 'A customer’s message stored in its conversation',
    description: 'Once however often WhatsApp repeats it. `message` is as GET /v1/conversations/{id}/messages lists it.',
    schema: envelope('message.received', messageReceivedData),
  },
  'template.status.updated': {
    summary: 'A template’s status changed',
    description: 'From WhatsApp’s status webhook, or the template sync.',
    schema: envelope('template.status.updated', templateStatusData),
  },
  'marketing_opt_out.updated': {
    summary: 'A number’s marketing opt-out recorded or lifted',
    description: 'By the customer’s tap (`button`), by WhatsApp (`whatsapp`: their preference, or a marketing message it refused for it) or by an operator (`admin`); `optedOut` is what holds now, `at` when the change was made.',
    schema: envelope('marketing_opt_out.updated', marketingOptOutData),
  },
  [TEST_EVENT_TYPE]: {
    summary: 'A test event',
    description: 'Only from POST /v1/webhook-endpoints/{id}/test, to the one endpoint named, whatever its `events`.',
    schema: envelope(TEST_EVENT_TYPE, testEventData),
  },
} as const satisfies Record<WebhookEventType | typeof TEST_EVENT_TYPE, { summary: string; description: string; schema: z.ZodMiniType }>;
