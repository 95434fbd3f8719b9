import { defaultStore, defaultWebhookQueue } from '../../shared/default-store';
import type { QueueTarget } from '../../shared/queue';
import type { Store } from '../../shared/store';
import { writesEvents } from './event-gate';
import { sendEventDeliveries, type EventDeliveryMessage } from './event-queue';
import type { OutboxEvent } from './outbox-item';
import type { StreamEvent } from './stream-events';
import { recordMissedEvent } from './webhook-delivery';
import { listWebhookEndpoints, missesEvent, takesEvent, type WebhookEndpoint } from './webhook-endpoint-repository';

/** An event published: how many endpoints it went to; undefined when its workspace takes no events. */
export type Publication = { event: OutboxEvent; endpoints: number } | undefined;

/**
 * The outbox publisher's work for a stream batch (decisions 78, 89, 91): each event goes to the
 * endpoints of its own workspace that take it, one webhook-events message per endpoint, so each
 * endpoint's deliveries, and their retries, go their own way. Another workspace's endpoints are
 * never read.
 *
 * A dispatch's change is an event only for a workspace that takes events: decision 77's gate,
 * one cached read per container, so a workspace without an endpoint costs no read of its
 * endpoints per change. A workspace's endpoints are read once for the batch, and the batch's
 * messages go out ten to a SendMessageBatch (fewer when they are long), whichever events they
 * carry: about one queue request per ten events rather than one per event.
 *
 * Settled per event, in the batch's order: an event whose endpoints could not be read, or one of
 * whose messages the queue did not take, is rejected, for the stream to hand it over again; the
 * rest are published whatever became of it. Published twice, an event is delivered twice under
 * the same `webhook-id`, which receivers de-duplicate on.
 */
export async function publishStreamEvents(found: readonly StreamEvent[], store: Store = defaultStore(), queue: QueueTarget = defaultWebhookQueue()): Promise<PromiseSettledResult<Publication>[]> {
  const endpointsOf = oncePerWorkspace((workspaceId) => listWebhookEndpoints(workspaceId, store));
  const fannedOut = await Promise.allSettled(found.map((one) => fanOut(one, endpointsOf, store)));

  const messages = fannedOut.flatMap((result, event) => (result.status === 'fulfilled' ? result.value.messages.map((message) => ({ message, event })) : []));
  const refusedEvents = new Map<number, Error>();
  for (const [position, reason] of await sendEventDeliveries(messages, queue)) refusedEvents.set(messages[position]!.event, reason);

  return fannedOut.map((result, event): PromiseSettledResult<Publication> => {
    if (result.status === 'rejected') return result;
    if (refusedEvents.has(event)) return { status: 'rejected', reason: refusedEvents.get(event) };
    return { status: 'fulfilled', value: result.value.publication };
  });
}

/**
 * One event's messages, one per endpoint that takes it; and, for each disabled endpoint that
 * subscribes to it and keeps what it misses, the event's delivery record, given up without a POST,
 * for a resend once it is re-enabled (decision 165).
 */
async function fanOut(found: StreamEvent, endpointsOf: (workspaceId: string) => Promise<WebhookEndpoint[]>, store: Store): Promise<{ publication: Publication; messages: EventDeliveryMessage[] }> {
  if (found.gated && !(await writesEvents(found.workspaceId, store))) return { publication: undefined, messages: [] };
  const event = found.event();
  const now = new Date();
  const endpoints = await endpointsOf(event.workspaceId);
  const delivery = (endpoint: WebhookEndpoint) => ({ workspaceId: event.workspaceId, endpointId: endpoint.id, eventId: event.eventId, type: event.type, payload: event.payload });
  await Promise.all(endpoints.filter((endpoint) => missesEvent(endpoint, event.type, now.getTime())).map((endpoint) => recordMissedEvent(delivery(endpoint), now, store)));
  const taking = endpoints.filter((endpoint) => takesEvent(endpoint, event.type));
  return {
    publication: { event, endpoints: taking.length },
    messages: taking.map((endpoint) => ({ ...delivery(endpoint), attempt: 1 })),
  };
}

/** `load` once per workspace, its answer (or failure) shared by every event of that workspace. */
function oncePerWorkspace<T>(load: (workspaceId: string) => Promise<T>): (workspaceId: string) => Promise<T> {
  const loads = new Map<string, Promise<T>>();
  return (workspaceId) => {
    let loading = loads.get(workspaceId);
    if (!loading) loads.set(workspaceId, (loading = load(workspaceId)));
    return loading;
  };
}
