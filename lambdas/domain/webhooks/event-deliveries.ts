import * as z from '../../shared/zod';
import { defaultStore, defaultWebhookQueue } from '../../shared/default-store';
import { NotFoundError, ValidationError } from '../../shared/errors';
import type { QueueTarget } from '../../shared/queue';
import type { Store } from '../../shared/store';
import { decodeCursor, encodeCursor } from '../conversations/cursor';
import type { PageOf } from '../conversations/read-conversations';
import { instant } from '../time/instant';
import { enqueueEventDeliveries, type EventDeliveryMessage } from './event-queue';
import { eventIdTime, TEST_EVENT_TYPE, testEvent } from './webhook-event';
import { subscribesTo } from './webhook-endpoint';
import { deliveriesOfEndpoint, deliveriesSince, deliveryStates, getDelivery, type StoredDelivery } from './webhook-delivery';
import { getWebhookEndpoint, type WebhookEndpoint } from './webhook-endpoint-repository';

/** One event's deliveries to an endpoint, as GET /v1/webhook-endpoints/{id}/deliveries lists them (docs/api.md#webhook-events). */
export const deliveryResourceSchema = z.object({
  eventId: z.string(),
  type: z.string(),
  /** `delivered` (2xx), `retrying` (see nextAttemptAt), `failed` (410, the last attempt failed, or the endpoint was disabled: before the next attempt, or when the event was made). */
  state: z.enum(deliveryStates),
  /** POSTs made, resends included: 0 for an event made while the endpoint was disabled. */
  attempts: z.int().check(z.gte(0)),
  /** null when no POST was made. */
  lastAttemptAt: z.nullable(instant()),
  /** The receiver's status code; null when it gave none (timeout, refused connection, a URL that failed its check, no POST made). */
  lastStatusCode: z.nullable(z.int()),
  /** Why there was no status code: `timeout`, a connection error code, `url_refused: …`, or `endpoint_disabled` (no POST made: the event was made while the endpoint was disabled). */
  lastError: z.nullable(z.string()),
  nextAttemptAt: z.nullable(instant()),
});
export type DeliveryResource = z.output<typeof deliveryResourceSchema>;

/** Most deliveries one "resend since" queues; the answer says where to go on from. */
export const RESEND_BATCH_MAX = 500;

const toResource = (delivery: StoredDelivery): DeliveryResource => ({
  eventId: delivery.eventId,
  type: delivery.type,
  state: delivery.state,
  attempts: delivery.attempts,
  lastAttemptAt: delivery.lastAttemptAt,
  lastStatusCode: delivery.lastStatusCode,
  lastError: delivery.lastError,
  nextAttemptAt: delivery.nextAttemptAt,
});

/** The workspace's endpoint; an unknown id and another workspace's are the same 404. */
async function endpointOf(workspaceId: string, endpointId: string, store: Store): Promise<WebhookEndpoint> {
  const endpoint = await getWebhookEndpoint(workspaceId, endpointId, store);
  if (!endpoint) throw new NotFoundError('Webhook endpoint');
  return endpoint;
}

const enabled = (endpoint: WebhookEndpoint): WebhookEndpoint => {
  if (endpoint.status !== 'enabled') throw new ValidationError(`id: the endpoint is disabled (${endpoint.disabledReason ?? 'disabled'}); re-enable it with PATCH first`);
  return endpoint;
};

/** An endpoint's deliveries, newest event first, a cursor page at a time. */
export async function listEventDeliveries(
  workspaceId: string,
  endpointId: string,
  query: { limit: number; cursor?: string },
  store: Store = defaultStore(),
  now = new Date(),
): Promise<PageOf<DeliveryResource>> {
  const scope = `${workspaceId}|webhook-deliveries|${endpointId}`;
  const startKey = await decodeCursor(query.cursor, scope);
  await endpointOf(workspaceId, endpointId, store);
  const page = await deliveriesOfEndpoint(workspaceId, endpointId, { limit: query.limit, startKey }, store, now);
  return { items: page.items.map(toResource), nextCursor: await encodeCursor(page.lastKey, scope) };
}

/** Queues one event to the endpoint again, from its first attempt, under its own `webhook-id`. */
export async function resendEvent(
  workspaceId: string,
  endpointId: string,
  eventId: string,
  store: Store = defaultStore(),
  queue?: QueueTarget,
  now = new Date(),
): Promise<{ eventId: string }> {
  const endpoint = enabled(await endpointOf(workspaceId, endpointId, store));
  const delivery = await getDelivery(workspaceId, endpointId, eventId, store, now);
  if (!delivery) throw new NotFoundError('Webhook delivery');
  // Its delivery would give it up unsent (deliver-event.ts): say why now, rather than 202 and nothing.
  if (!resendable(endpoint, delivery)) throw new ValidationError(`The endpoint no longer takes ${delivery.type} events; add the type to its events (PATCH) to resend it`);
  await enqueueEventDeliveries([{ message: resendOf(workspaceId, endpointId, delivery) }], queue ?? defaultWebhookQueue());
  return { eventId };
}

/**
 * Queues again every event the endpoint has a delivery record of, made at or after `since`
 * (delivered or not), oldest first, at most RESEND_BATCH_MAX; `nextSince` is where to go on from
 * when there were more, null otherwise. A call never ends inside a millisecond, since `since` cannot
 * point into one: the batch stops before the millisecond the next call starts at, and a millisecond
 * that holds more than the batch (a reconciler run moves hundreds of dispatches at one instant) is
 * resent whole in one call. Otherwise a caller following `nextSince` looped on it for ever.
 */
export async function resendEventsSince(
  workspaceId: string,
  endpointId: string,
  since: Date,
  store: Store = defaultStore(),
  queue?: QueueTarget,
  now = new Date(),
): Promise<{ resent: number; nextSince: string | null }> {
  const endpoint = enabled(await endpointOf(workspaceId, endpointId, store));
  const { batch, nextSince } = await resendBatch(workspaceId, endpointId, since, store, now);
  // Only the types the endpoint takes now: another's delivery would be given up unsent.
  const resent = batch.filter((delivery) => resendable(endpoint, delivery));
  await enqueueEventDeliveries(
    resent.map((delivery) => ({ message: resendOf(workspaceId, endpointId, delivery) })),
    queue ?? defaultWebhookQueue(),
  );
  return { resent: resent.length, nextSince: nextSince?.toISOString() ?? null };
}

/**
 * A resend's first attempt: a round after the record's, which every attempt of the rounds before
 * it then gives way to (webhook-delivery.ts, `turnOf`). Two resends queued before either's attempt
 * was recorded are the same round: one POST, as one resend.
 */
const resendOf = (workspaceId: string, endpointId: string, delivery: StoredDelivery): EventDeliveryMessage => ({
  workspaceId,
  endpointId,
  eventId: delivery.eventId,
  type: delivery.type,
  payload: delivery.payload,
  attempt: 1,
  round: (delivery.round ?? 0) + 1,
});

/** A test event goes to the endpoint whatever it subscribes to; any other, if it takes the type. */
const resendable = (endpoint: WebhookEndpoint, delivery: StoredDelivery) => delivery.type === TEST_EVENT_TYPE || subscribesTo(endpoint, delivery.type);

/** The millisecond an event was made in (its id says: every delivery record's event is ours). */
const madeAt = (delivery: StoredDelivery): number => eventIdTime(delivery.eventId)!.getTime();

/** One "resend since" call's deliveries, whole milliseconds only, and where the next call starts. */
async function resendBatch(workspaceId: string, endpointId: string, since: Date, store: Store, now: Date): Promise<{ batch: StoredDelivery[]; nextSince: Date | undefined }> {
  const deliveries = await deliveriesSince(workspaceId, endpointId, since, RESEND_BATCH_MAX + 1, store, now);
  const next = deliveries[RESEND_BATCH_MAX];
  if (!next) return { batch: deliveries, nextSince: undefined };
  const boundary = madeAt(next);
  const before = deliveries.slice(0, RESEND_BATCH_MAX).filter((delivery) => madeAt(delivery) < boundary);
  if (before.length) return { batch: before, nextSince: new Date(boundary) };
  // The whole batch was made in the millisecond `next` was: that millisecond, all of it.
  const end = new Date(boundary + 1);
  const whole = await deliveriesSince(workspaceId, endpointId, new Date(boundary), Number.MAX_SAFE_INTEGER, store, now, end);
  const after = await deliveriesSince(workspaceId, endpointId, end, 1, store, now);
  return { batch: whole, nextSince: after.length ? end : undefined };
}

/** A `webhook.test` event to the endpoint alone, through the same queue, signing and retries as any. */
export async function sendTestEvent(workspaceId: string, endpointId: string, now: Date, store: Store = defaultStore(), queue?: QueueTarget): Promise<{ eventId: string }> {
  enabled(await endpointOf(workspaceId, endpointId, store));
  const event = testEvent(endpointId, now);
  // The queue is resolved once the endpoint is known: an unknown one is a 404 however the function is wired.
  await enqueueEventDeliveries([{ message: { workspaceId, endpointId, eventId: event.id, type: event.type, payload: JSON.stringify(event), attempt: 1 } }], queue ?? defaultWebhookQueue());
  return { eventId: event.id };
}
