import type { WebhookEndpoint } from './webhook-endpoint';

/**
 * The events a disabled endpoint misses are kept for it (decision 165). Apart from the endpoint's
 * schema, so the event gate, which every change that makes an event asks, carries no more of zod.
 */

/**
 * How long a disabled endpoint keeps a record of each event it misses, for a resend once it is
 * re-enabled: as long as any delivery record is kept (DELIVERY_RECORD_DAYS), so "resend since"
 * reaches as far back for what it missed as for what it was sent.
 */
export const MISSED_EVENTS_KEPT_MS = 14 * 24 * 60 * 60 * 1000;

/** Whether the endpoint is disabled, and recently enough that it keeps a record of the events it misses. */
export const keepsMissedEvents = (endpoint: Pick<WebhookEndpoint, 'status' | 'disabledAt' | 'updatedAt'>, nowMs: number): boolean =>
  endpoint.status === 'disabled' && nowMs - Date.parse(endpoint.disabledAt ?? endpoint.updatedAt) < MISSED_EVENTS_KEPT_MS;
