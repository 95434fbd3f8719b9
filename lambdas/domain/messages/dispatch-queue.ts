import { SendMessageCommand } from '@aws-sdk/client-sqs';
import { defaultQueue } from '../../shared/default-store';
import { tenantGroup, type QueueTarget } from '../../shared/queue';

/** What the deliver consumer receives: the dispatch to deliver, nothing it could read stale. */
export interface DispatchMessage {
  dispatchId: string;
  workspaceId: string;
}

export async function enqueueDispatch(message: DispatchMessage, queue: QueueTarget = defaultQueue()): Promise<void> {
  await queue.sqs.send(new SendMessageCommand({ QueueUrl: queue.queueUrl, MessageBody: JSON.stringify(message), MessageGroupId: tenantGroup(message.workspaceId) }));
}
