import { SendMessageBatchCommand } from '@aws-sdk/client-sqs';
import * as z from '../../shared/zod';
import { mapWithConcurrency } from '../../shared/concurrency';
import { MAX_QUEUE_DELAY_SECONDS, tenantGroup, type QueueTarget } from '../../shared/queue';

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
  /** 1 for the first attempt (and for a resend); one more for each retry. */
  attempt: z.int().check(z.gte(1)),
  /** Not before: a retry due later than SQS can hold a message back waits in hops (retry-schedule.ts). */
  dueAt: z.optional(z.iso.datetime()),
  /** When the event first failed at this endpoint: how long an endpoint has been failing is counted from it. */
  failingSince: z.optional(z.iso.datetime()),
});
export type EventDeliveryMessage = z.output<typeof eventDeliveryMessageSchema>;

/** SQS takes at most ten messages in one SendMessageBatch. */
const MESSAGES_PER_REQUEST = 10;
/** Requests in flight at once: a stream batch of 100 events to five endpoints is 50 of them. */
const REQUESTS_IN_FLIGHT = 10;

/** An entry SQS answered for and did not take (SendMessageBatch's `Failed`). */
export class QueueRefusal extends Error {
  constructor(readonly code: string) {
    super(`The webhook queue refused a message: ${code}`);
    this.name = 'QueueRefusal';
  }
}

/**
 * Puts the messages on the queue, each held back `delaySeconds` (at most 15 min), ten to a
 * request. Returns the positions of those it did not take, with why: a `QueueRefusal`, or the
 * error of the request that carried it.
 */
export async function sendEventDeliveries(messages: readonly { message: EventDeliveryMessage; delaySeconds?: number }[], queue: QueueTarget): Promise<Map<number, Error>> {
  const requests = Array.from({ length: Math.ceil(messages.length / MESSAGES_PER_REQUEST) }, (_, i) => i * MESSAGES_PER_REQUEST);
  const refused = new Map<number, Error>();
  await mapWithConcurrency(requests, REQUESTS_IN_FLIGHT, async (start) => {
    const batch = messages.slice(start, start + MESSAGES_PER_REQUEST);
    try {
      const { Failed = [] } = await queue.sqs.send(
        new SendMessageBatchCommand({
          QueueUrl: queue.queueUrl,
          Entries: batch.map(({ message, delaySeconds = 0 }, i) => ({
            Id: String(i),
            MessageBody: JSON.stringify(message),
            MessageGroupId: tenantGroup(message.workspaceId),
            ...(delaySeconds ? { DelaySeconds: Math.min(MAX_QUEUE_DELAY_SECONDS, delaySeconds) } : {}),
          })),
        }),
      );
      for (const entry of Failed) refused.set(start + Number(entry.Id), new QueueRefusal(entry.Code ?? 'unknown'));
    } catch (error) {
      batch.forEach((_, i) => refused.set(start + i, error instanceof Error ? error : new Error(String(error))));
    }
  });
  return refused;
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
  throw new Error(`Webhook queue refused ${reasons.length} message(s): ${[...new Set(reasons.map((reason) => (reason as QueueRefusal).code))].join(', ')}`);
}
