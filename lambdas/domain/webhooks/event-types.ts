/**
 * The event types a webhook endpoint can subscribe to (docs/api.md#webhook-events). An endpoint
 * whose `events` is null receives every type, including types added here later.
 */
export const webhookEventTypes = ['message.status.updated', 'message.received', 'template.status.updated', 'marketing_opt_out.updated'] as const;
export type WebhookEventType = (typeof webhookEventTypes)[number];
