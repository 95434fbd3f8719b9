import { SendMessageBatchCommand } from '@aws-sdk/client-sqs';
import * as z from '../../shared/zod';
import type { QueueTarget } from '../../shared/queue';
import { MAX_QUEUE_DELAY_SECONDS } from './retry-schedule';

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

/** Puts the messages on the queue, each held back `delaySeconds` (at most 15 min); throws if any was refused. */
export async function enqueueEventDeliveries(messages: readonly { message: EventDeliveryMessage; delaySeconds?: number }[], queue: QueueTarget): Promise<void> {
  for (let start = 0; start < messages.length; start += 10) {
    const batch = messages.slice(start, start + 10);
    const { Failed = [] } = await queue.sqs.send(
      new SendMessageBatchCommand({
        QueueUrl: queue.queueUrl,
        Entries: batch.map(({ message, delaySeconds = 0 }, i) => ({
          Id: String(i),
          MessageBody: JSON.stringify(message),
          ...(delaySeconds ? { DelaySeconds: Math.min(MAX_QUEUE_DELAY_SECONDS, delaySeconds) } : {}),
        })),
      }),
    );
    if (Failed.length) throw new Error(`Webhook queue refused ${Failed.length} message(s): ${Failed.map((entry) => entry.Code).join(', ')}`);
  }
}
