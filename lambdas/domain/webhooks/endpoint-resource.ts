import * as z from 'zod';
import { webhookEventTypes } from './event-types';
import type { WebhookEndpoint } from './webhook-endpoint';

/** A webhook endpoint as the API shows it (docs/api.md#webhook-endpoints): never its secrets. */
export const webhookEndpointResourceSchema = z.object({
  id: z.string().meta({ description: '`whe_` and 32 hex digits.' }),
  url: z.string(),
  events: z
    .array(z.enum(webhookEventTypes))
    .nullable()
    .meta({ description: 'The event types sent to this endpoint; `null`: every type, including types added later.' }),
  description: z.string().nullable(),
  status: z.enum(['enabled', 'disabled']),
  disabledReason: z
    .enum(['gone', 'failing'])
    .nullable()
    .meta({ description: 'Why a disabled endpoint gets no events: `gone`, it answered 410; `failing`, its deliveries kept failing for days. `null` when enabled.' }),
  createdAt: z.string(),
  updatedAt: z.string(),
});

export type WebhookEndpointResource = z.output<typeof webhookEndpointResourceSchema>;

/** The endpoint without what only delivery may see (its workspace, its secrets). */
export const toResource = ({ id, url, events, description, status, disabledReason, createdAt, updatedAt }: WebhookEndpoint): WebhookEndpointResource => ({
  id,
  url,
  events,
  description,
  status,
  disabledReason,
  createdAt,
  updatedAt,
});
