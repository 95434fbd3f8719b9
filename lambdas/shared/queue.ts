import { SendMessageBatchCommand, type SQSClient } from '@aws-sdk/client-sqs';
import { mapWithConcurrency } from './concurrency';

/** Where dispatch messages go: an SQS client and the queue URL it sends to. */
export interface QueueTarget {
  sqs: SQSClient;
  queueUrl: string;
}

/** SQS holds a message back at most this long (`DelaySeconds`); a longer wait is waited in hops of at most this. */
export const MAX_QUEUE_DELAY_SECONDS = 900;

/**
 * The `MessageGroupId` of a message on our standard queues: the workspace it belongs to. On a
 * standard queue the group names the message's tenant for SQS fair queues: when one workspace's
 * messages take more than their share of the consumer (a campaign's backlog, an endpoint that
 * answers slowly), SQS hands other workspaces' messages out first, and that workspace's wait
 * instead of everyone's. Messages of one group are still taken in parallel and in no order, as on
 * any standard queue (docs/deploy.md, "Delivery pace"; decision 135).
 */
export function tenantGroup(workspaceId: string): string {
  return workspaceId;
}

/** SQS takes at most ten messages in one SendMessageBatch. */
const MESSAGES_PER_REQUEST = 10;

/** An entry SQS answered for and did not take (SendMessageBatch's `Failed`). */
export class QueueRefusal extends Error {
  constructor(readonly code: string) {
    super(`The queue refused a message: ${code}`);
    this.name = 'QueueRefusal';
  }
}

/**
 * Puts the bodies on the queue as JSON, each in its workspace's group and held back its
 * `delaySeconds` (at most SQS's 15 minutes), ten to a request, `requestsInFlight` requests at once.
 * Returns the positions of those it did not take, with why: a `QueueRefusal`, or the error of the
 * request that carried it.
 */
export async function sendBatched(queue: QueueTarget, messages: readonly { body: { workspaceId: string }; delaySeconds?: number | undefined }[], requestsInFlight = 1): Promise<Map<number, Error>> {
  const requests = Array.from({ length: Math.ceil(messages.length / MESSAGES_PER_REQUEST) }, (_, i) => i * MESSAGES_PER_REQUEST);
  const refused = new Map<number, Error>();
  await mapWithConcurrency(requests, requestsInFlight, async (start) => {
    const batch = messages.slice(start, start + MESSAGES_PER_REQUEST);
    try {
      const { Failed = [] } = await queue.sqs.send(
        new SendMessageBatchCommand({
          QueueUrl: queue.queueUrl,
          Entries: batch.map(({ body, delaySeconds = 0 }, i) => ({
            Id: String(i),
            MessageBody: JSON.stringify(body),
            MessageGroupId: tenantGroup(body.workspaceId),
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
