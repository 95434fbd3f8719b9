import { SendMessageBatchCommand, SendMessageCommand } from '@aws-sdk/client-sqs';
import { defaultQueue } from '../../shared/default-store';
import { MAX_QUEUE_DELAY_SECONDS, tenantGroup, type QueueTarget } from '../../shared/queue';

/** What the deliver consumer receives: the dispatch to deliver, nothing it could read stale. */
export interface DispatchMessage {
  dispatchId: string;
  workspaceId: string;
}

export async function enqueueDispatch(message: DispatchMessage, queue: QueueTarget = defaultQueue()): Promise<void> {
  await queue.sqs.send(new SendMessageCommand({ QueueUrl: queue.queueUrl, MessageBody: JSON.stringify(message), MessageGroupId: tenantGroup(message.workspaceId) }));
}

/**
 * Puts dispatch messages on the queue again, each held back its `delaySeconds` (at most SQS's
 * 15 minutes), up to ten in one request (a consumer batch's worth). A new message starts its
 * receive count afresh. Returns the positions of the messages the queue did not take.
 */
export async function requeueDispatches(messages: readonly { message: DispatchMessage; delaySeconds: number }[], queue: QueueTarget = defaultQueue()): Promise<number[]> {
  const refused: number[] = [];
  for (let start = 0; start < messages.length; start += 10) {
    const batch = messages.slice(start, start + 10);
    try {
      const { Failed = [] } = await queue.sqs.send(
        new SendMessageBatchCommand({
          QueueUrl: queue.queueUrl,
          Entries: batch.map(({ message, delaySeconds }, i) => ({
            Id: String(i),
            MessageBody: JSON.stringify(message),
            MessageGroupId: tenantGroup(message.workspaceId),
            DelaySeconds: Math.min(MAX_QUEUE_DELAY_SECONDS, delaySeconds),
          })),
        }),
      );
      refused.push(...Failed.map((entry) => start + Number(entry.Id)));
    } catch {
      refused.push(...batch.map((_, i) => start + i));
    }
  }
  return refused;
}
