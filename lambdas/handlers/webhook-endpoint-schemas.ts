import * as z from 'zod';
import { webhookEventTypes } from '../domain/webhooks/event-types';
import { WEBHOOK_DESCRIPTION_MAX_LENGTH } from '../domain/webhooks/webhook-endpoint';
import { WEBHOOK_URL_MAX_LENGTH } from '../domain/webhooks/url-rules';

/** Fields of the webhook endpoint routes' bodies and paths (docs/api.md#webhook-endpoints). */
export const endpointPath = z.object({
  id: z.string().regex(/^whe_[0-9a-f]{32}$/, 'must be a webhook endpoint id: whe_ and 32 lowercase hex digits'),
});

/** Judged by the URL rules in the domain (docs/api.md#webhook-url-rules); here only its type. */
export const urlField = z.string({ error: 'must be a string' }).meta({
  description: `Where events are posted: https, to a host whose every address is public; at most ${WEBHOOK_URL_MAX_LENGTH} characters. The local runtime also takes http://127.0.0.1 and http://localhost.`,
});

const EVENT_TYPE_MESSAGE = `must be one of ${webhookEventTypes.join(', ')}`;
/** A list of known types, duplicates dropped; `null` subscribes to every type, present and future. */
export const eventsField = z
  .array(z.enum(webhookEventTypes, { error: EVENT_TYPE_MESSAGE }), { error: 'must be a list of event types, or null for every type' })
  .min(1, 'must name at least one event type, or be null for every type')
  .max(webhookEventTypes.length * 4, 'names too many event types')
  .transform((types) => [...new Set(types)])
  .nullable()
  .meta({ description: 'The event types to receive; `null` or absent: every type, including types added later.' });

export const descriptionField = z
  .string({ error: 'must be a string, or null for none' })
  .trim()
  .min(1, 'must not be empty; use null for none')
  .max(WEBHOOK_DESCRIPTION_MAX_LENGTH, `must be at most ${WEBHOOK_DESCRIPTION_MAX_LENGTH} characters`)
  .nullable();
