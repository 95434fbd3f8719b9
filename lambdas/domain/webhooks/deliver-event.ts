import { randomUUID } from 'node:crypto';
import { config } from '../../shared/config';
import { defaultStore, defaultWebhookQueue } from '../../shared/default-store';
import { logger } from '../../shared/logger';
import { eventDeliveryMetrics } from '../../shared/metrics';
import type { QueueTarget } from '../../shared/queue';
import type { Store } from '../../shared/store';
import { webhookQueueSettings } from '../../shared/webhook-queue-settings';
import { writeIfAllowed, writeOne } from '../../shared/writes';
import { FAILING_DISABLE_AFTER_MS, noteDelivered, noteGivenUp } from './endpoint-health';
import { enqueueEventDeliveries, type EventDeliveryMessage } from './event-queue';
import { pinnedPost, type PostOutcome } from './pinned-post';
import { nextAttemptAt, queueDelaySeconds } from './retry-schedule';
import { signedHeaders } from './signing';
import { checkWebhookUrl, configuredUrlRules, type Resolver } from './url-rules';
import { attemptCountUpdate, attemptRecordUpdate, recordedPlace, recordMissedEvent, roundClaimUpdate, turnOf, UNSUBSCRIBED, type DeliveryState } from './webhook-delivery';
import { subscribesTo, type WebhookEndpoint } from './webhook-endpoint';
import { disableWebhookEndpoint, enabledSince, endpointReadsOfBatch, type EndpointReader } from './webhook-endpoint-repository';
import { eventIdTime, TEST_EVENT_TYPE } from './webhook-event';

/** What became of one queue message. */
export type EventDeliveryOutcome =
  /** Answered 2xx. */
  | 'delivered'
  /** Failed; the next attempt is queued. */
  | 'retrying'
  /** Failed for the last time: given up for this endpoint (it can be resent). */
  | 'abandoned'
  /** Answered 410: the endpoint is disabled (`gone`). */
  | 'gone'
  /** Not due yet: put back for another hop. */
  | 'waiting'
  /** The endpoint was deleted or disabled since: nothing sent. */
  | 'skipped'
  /** Failed, after a later attempt's result was recorded (a resend overtook it): that one stands, and retries, if any, are its own. */
  | 'overtaken'
  /** Made already (SQS handed its message out again, or a copy of it), being made by another message (a resend of the same round), or overtaken before it began: nothing posted or queued. */
  | 'replayed';

export interface EventDeliveryDependencies {
  store?: Store;
  /** The queue hands this message out for the first time (its ApproximateReceiveCount is 1); unknown reads as not. */
  firstReceive?: boolean;
  queue?: QueueTarget;
  now?: () => Date;
  /** How URLs are checked before each attempt: the configured rules unless a test replaces them. */
  urlRules?: { resolve?: Resolver; allowLocal: boolean };
  timeoutMs?: number;
  /** How the endpoint is read: the batch's shared reads (`endpointReadsOfBatch`), or a read of its own. */
  endpoints?: EndpointReader;
}

/**
 * One attempt to deliver one event to one endpoint (docs/api.md#webhook-events): the endpoint is
 * read (a deleted or disabled one is skipped), its URL checked again and the POST sent to the very
 * address the check approved, signed by every secret still signing. A 2xx is delivered; 410
 * disables the endpoint; anything else, or no answer within the timeout, is retried on the
 * schedule with the same `webhook-id`. An endpoint whose events have been given up for
 * FAILING_DISABLE_AFTER_MS is disabled (`failing`). Every attempt is recorded for the deliveries
 * list, and one that does not come after the recorded one (`turnOf`: a message handed out again
 * after its attempt was made, a retry a resend overtook) is not made.
 */
export async function deliverEvent(message: EventDeliveryMessage, deps: EventDeliveryDependencies = {}): Promise<EventDeliveryOutcome> {
  const store = deps.store ?? defaultStore();
  const queue = deps.queue ?? defaultWebhookQueue();
  const now = (deps.now ?? (() => new Date()))();

  const dueAt = message.dueAt ? new Date(message.dueAt) : undefined;
  if (dueAt && dueAt > now) {
    await enqueueEventDeliveries([{ message, delaySeconds: queueDelaySeconds(dueAt, now) }], queue);
    return 'waiting';
  }
  const endpoint = await (deps.endpoints ?? endpointReadsOfBatch(store))(message.workspaceId, message.endpointId);
  if (!endpoint) return 'skipped';
  // A PATCH since the event was queued took its type out of the endpoint's events: nothing more is posted, retries and resends included.
  if (message.type !== TEST_EVENT_TYPE && !subscribesTo(endpoint, message.type)) {
    await recordMissedEvent(message, now, store, UNSUBSCRIBED);
    return 'skipped';
  }
  if (endpoint.status !== 'enabled') {
    // Missed: kept as given up (a record `retrying` would wait for an attempt that will not come), for a resend once re-enabled.
    await recordMissedEvent(message, now, store);
    return 'skipped';
  }

  // An event's first attempt as published, handed out for the first time soon after the event was
  // made, has no attempt of its own to follow: it goes without reading the record (most events need
  // no other attempt). A message moved back from the DLQ is handed out for the first time too, but
  // never that soon (`UNREAD_FIRST_ATTEMPT_MS`). A copy the publisher made that soon may POST again,
  // the at-least-once decision 91 allows, and the record's condition keeps it from a second result
  // or chain. Anything else reads first (decisions 209, 220).
  const firstOfAll = deps.firstReceive === true && message.attempt === 1 && !message.round && !message.attemptId && madeWithin(message.eventId, UNREAD_FIRST_ATTEMPT_MS, now);
  const recorded = firstOfAll ? undefined : await recordedPlace(message, store);
  const place = firstOfAll ? ({ turn: 'post' } as const) : turnOf(message, recorded);
  if (place.turn === 'replayed') return 'replayed';
  if (place.turn === 'requeue') {
    // A copy of its own, in case the first was queued after all: whichever is attempted second is
    // `replayed`. Due after the first has had its whole attempt and its record is read back, so the
    // two are never attempted at once (both would read no record of it and POST).
    const copyDueAt = new Date(place.nextAttemptAt.getTime() + (deps.timeoutMs ?? config.WEBHOOK_TIMEOUT_MS) + REQUEUED_COPY_LAG_MS);
    await queueNextAttempt(message, copyDueAt, message.failingSince ?? place.failedAt.toISOString(), now, queue, randomUUID());
    return 'retrying';
  }
  // Two resends queued before either was attempted are one round, and one consumer batch may post
  // both at once, each reading no attempt of it: a resend's first attempt claims its round before
  // its POST, for as long as the attempt and its record take (decision 220).
  if (recorded && message.round && message.attempt === 1) {
    const until = new Date(now.getTime() + (deps.timeoutMs ?? config.WEBHOOK_TIMEOUT_MS) + REQUEUED_COPY_LAG_MS);
    if (!(await writeIfAllowed(store, roundClaimUpdate(message, now, until)))) return 'replayed';
  }

  const outcome = await attempt(endpoint.url, endpoint.secrets, message, now, deps);
  /** Whether this attempt's result is the record's: false when a later attempt's is recorded already (a resend overtook this one), which stands; this one is counted. */
  const record = async (state: DeliveryState, next: Date | null): Promise<boolean> => {
    const recorded = await writeIfAllowed(store, attemptRecordUpdate({ ...message, attemptedAt: now, statusCode: outcome.statusCode, error: outcome.error, state, nextAttemptAt: next }));
    if (!recorded) await writeOne(store, attemptCountUpdate(message));
    return recorded;
  };

  if (outcome.statusCode !== null && outcome.statusCode >= 200 && outcome.statusCode < 300) {
    await record('delivered', null);
    await noteDelivered(message.workspaceId, message.endpointId, now, store);
    eventDeliveryMetrics.delivered();
    return 'delivered';
  }
  eventDeliveryMetrics.attemptFailed();
  const failingSince = message.failingSince ?? now.toISOString();
  if (outcome.statusCode === 410) {
    await record('failed', null);
    await disable(message, 'gone', now, store, endpoint);
    eventDeliveryMetrics.abandoned();
    return 'gone';
  }
  const next = nextAttemptAt(message.attempt, now);
  if (next) {
    // Recorded before the next attempt is queued: a record that fails fails the message, which comes
    // back to this attempt, so its next one is queued once. A queue that then refuses fails it too,
    // and the message, back, finds its attempt recorded and only queues the next (`turnOf`), until
    // the queue takes it (or the message reaches the DLQ, which alarms).
    if (!(await record('retrying', next))) return 'overtaken';
    await queueNextAttempt(message, next, failingSince, now, queue);
    return 'retrying';
  }
  // Given up only if no later attempt was recorded since: a delivered resend is not a give-up.
  if (!(await record('failed', null))) return 'overtaken';
  eventDeliveryMetrics.abandoned();
  const since = await noteGivenUp(message.workspaceId, message.endpointId, new Date(failingSince), new Date(enabledSince(endpoint)), store);
  if (now.getTime() - since.getTime() >= FAILING_DISABLE_AFTER_MS) await disable(message, 'failing', now, store, endpoint);
  return 'abandoned';
}

/** Beyond an attempt's timeout, how much later a re-queued copy of it is due (and a resend's claim of its round lapses): its record's write, and an eventually consistent read of it. */
const REQUEUED_COPY_LAG_MS = 5_000;

/**
 * How soon after its event a first attempt on its first receive goes without reading its record. A
 * message reaches the DLQ only after `maxReceiveCount` receives a visibility timeout apart, so one
 * moved back is received for the first time again at least 12 minutes after the event was made;
 * half that leaves room for clocks, and is minutes beyond the publisher's lag (seconds).
 */
export const UNREAD_FIRST_ATTEMPT_MS = ((webhookQueueSettings.maxReceiveCount - 1) * webhookQueueSettings.visibilityTimeoutSeconds * 1000) / 2;

const madeWithin = (eventId: string, ms: number, now: Date): boolean => {
  const madeAt = eventIdTime(eventId);
  return madeAt !== undefined && now.getTime() - madeAt.getTime() < ms;
};

function queueNextAttempt(message: EventDeliveryMessage, dueAt: Date, failingSince: string, now: Date, queue: QueueTarget, attemptId?: string): Promise<void> {
  const next = { ...message, attempt: message.attempt + 1, dueAt: dueAt.toISOString(), failingSince, attemptId };
  return enqueueEventDeliveries([{ message: next, delaySeconds: queueDelaySeconds(dueAt, now) }], queue);
}

async function attempt(url: string, secrets: Parameters<typeof signedHeaders>[0], message: EventDeliveryMessage, now: Date, deps: EventDeliveryDependencies): Promise<PostOutcome> {
  // The name's lookup is part of the attempt's time, as a browser counts it: a stalled resolver
  // is a timeout, retried, not minutes of the consumer's batch.
  const timeoutMs = deps.timeoutMs ?? config.WEBHOOK_TIMEOUT_MS;
  const deadline = Date.now() + timeoutMs;
  const verdict = await checkWebhookUrl(url, { ...(deps.urlRules ?? configuredUrlRules()), resolveTimeoutMs: timeoutMs });
  if (!verdict.ok) return { statusCode: null, error: verdict.timedOut ? 'timeout' : `url_refused: ${verdict.reason}` };
  const headers = signedHeaders(secrets, message.eventId, now, message.payload);
  return pinnedPost(verdict, headers, message.payload, Math.max(1, deadline - Date.now()));
}

/** Disables the endpoint as this batch read it (one re-enabled since stays enabled), counted and logged when it did. */
async function disable(message: EventDeliveryMessage, reason: 'gone' | 'failing', now: Date, store: Store, asRead: WebhookEndpoint): Promise<void> {
  if (!(await disableWebhookEndpoint(message.workspaceId, message.endpointId, reason, now, store, asRead))) return;
  eventDeliveryMetrics.endpointDisabled();
  logger.warn('Webhook endpoint disabled', { workspaceId: message.workspaceId, endpointId: message.endpointId, reason });
}
