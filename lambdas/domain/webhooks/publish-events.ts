import { defaultStore, defaultWebhookQueue } from '../../shared/default-store';
import type { QueueTarget } from '../../shared/queue';
import type { Store } from '../../shared/store';
import { writesEvents } from './event-gate';
import { enqueueEventDeliveries } from './event-queue';
import type { OutboxEvent } from './outbox-item';
import type { StreamEvent } from './stream-events';
import { endpointsFor } from './webhook-endpoint-repository';

/**
 * An event found in the table's stream, published: the event and how many endpoints it went to,
 * or undefined when its workspace takes no events. A dispatch's change is an event only for a
 * workspace that takes events: decision 77's gate, asked here since decision 89, so a workspace
 * without an endpoint costs one cached read per container, not a read of its endpoints per change.
 */
export async function publishStreamEvent(found: StreamEvent, store: Store = defaultStore(), queue: QueueTarget = defaultWebhookQueue()): Promise<{ event: OutboxEvent; endpoints: number } | undefined> {
  if (found.gated && !(await writesEvents(found.workspaceId, store))) return undefined;
  const event = found.event();
  return { event, endpoints: await publishEvent(event, store, queue) };
}

/**
 * The outbox publisher's work for one event (decision 78): one webhook-events message per
 * endpoint of the event's workspace that is enabled and takes its type, so each endpoint's
 * deliveries, and their retries, go their own way. Another workspace's endpoints are never read.
 * Returns how many endpoints it went to. Published twice (a stream batch retried), an event is
 * delivered twice under the same `webhook-id`, which receivers de-duplicate on.
 */
export async function publishEvent(event: OutboxEvent, store: Store = defaultStore(), queue: QueueTarget = defaultWebhookQueue()): Promise<number> {
  const endpoints = await endpointsFor(event.workspaceId, event.type, store);
  await enqueueEventDeliveries(
    endpoints.map((endpoint) => ({
      message: { workspaceId: event.workspaceId, endpointId: endpoint.id, eventId: event.eventId, type: event.type, payload: event.payload, attempt: 1 },
    })),
    queue,
  );
  return endpoints.length;
}
