import * as z from '../../shared/zod';
import { ServiceUnavailableError } from '../../shared/errors';
import { QueueRefusal, sendBatched, type QueueTarget } from '../../shared/queue';

/**
 * A message of the webhook-events queue: one event for one endpoint, one attempt. Everything the
 * POST needs travels with it (the body is the exact bytes to send); the endpoint (its URL, its
 * secrets, whether it is still enabled) is read when the attempt is made.
 */
export const eventDeliveryMessageSchema = z.object({
  workspaceId: z.string().check(z.minLength(1)),
  endpointId: z.string().check(z.minLength(1)),
  eventId: z.string().check(z.minLength(1)),
  type: z.string().check(z.minLength(1)),
  payload: z.string(),
  /** 1 for a round's first attempt; one more for each retry. */
  attempt: z.int().check(z.gte(1)),
  /** 0 (or absent) for the event as published; a resend's is one more than its delivery record's (webhook-delivery.ts, `AttemptPlace`). */
  round: z.optional(z.int().check(z.gte(0))),
  /** Only on a next attempt queued again (deliver-event.ts): tells that copy from the message first queued, so whichever comes second ends there. */
  attemptId: z.optional(z.string()),
  /** Not before: a retry due later than SQS can hold a message back waits in hops (retry-schedule.ts). */
  dueAt: z.optional(z.iso.datetime()),
  /** When the event first failed at this endpoint: how long an endpoint has been failing is counted from it. */
  failingSince: z.optional(z.iso.datetime()),
});
export type EventDeliveryMessage = z.output<typeof eventDeliveryMessageSchema>;

/** Requests in flight at once: a stream batch of 100 events to five endpoints is 50 of them. */
const REQUESTS_IN_FLIGHT = 10;

/**
 * Puts the messages on the queue, each held back `delaySeconds` (at most 15 min), ten to a
 * request or fewer when they are long (`sendBatched`). Returns the positions of those it did not take, with why: a `QueueRefusal`, or the
 * error of the request that carried it.
 */
export function sendEventDeliveries(messages: readonly { message: EventDeliveryMessage; delaySeconds?: number }[], queue: QueueTarget): Promise<Map<number, Error>> {
  return sendBatched(queue, messages.map(({ message, delaySeconds }) => ({ body: message, delaySeconds })), REQUESTS_IN_FLIGHT);
}

/**
 * Puts the messages on the queue (as `sendEventDeliveries`); throws if any was not taken: a
 * request's own error as it came (so a queue that did not answer reads as unavailable to an HTTP
 * caller: 503), or one naming the refusals.
 */
export async function enqueueEventDeliveries(messages: readonly { message: EventDeliveryMessage; delaySeconds?: number }[], queue: QueueTarget): Promise<void> {
  const reasons = [...(await sendEventDeliveries(messages, queue)).values()];
  if (!reasons.length) return;
  const requestError = reasons.find((reason) => !(reason instanceof QueueRefusal));
  if (requestError !== undefined) throw requestError;
  // The queue's own trouble, told in a batch answer: a retry's, not a fault of the request (503, not 500).
  throw new ServiceUnavailableError({ cause: new Error(`Webhook queue refused ${reasons.length} message(s): ${[...new Set(reasons.map((reason) => (reason as QueueRefusal).code))].join(', ')}`) });
}
