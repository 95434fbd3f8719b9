import { SendMessageCommand } from '@aws-sdk/client-sqs';
import { defaultQueue } from '../../shared/default-store';
import { sendBatched, tenantGroup, type QueueTarget } from '../../shared/queue';
import type { StatusMove } from './dispatch-repository';

/**
 * The provider's verdict on an attempt, when the table did not take it in time: the message then
 * carries it, and its consumer writes it rather than delivering (decision 161).
 */
export type CarriedVerdict = Pick<StatusMove, 'occurredAt' | 'providerMessageId' | 'failureCode' | 'event'> & { to: 'sent' | 'failed' | 'unknown' };

/**
 * A release of an attempt's claim (the provider said "later", or refused our token) that the table
 * did not take in time: its consumer gives the claim back, then delivers (decision 161).
 */
export interface CarriedRelease {
  attemptStartedAt: string;
  /** The provider's "later": counted on the dispatch with the release (`laterAnswers`). */
  providerSaidLater: boolean;
}

/** What the deliver consumer receives: the dispatch to deliver, nothing it could read stale. */
export interface DispatchMessage {
  dispatchId: string;
  workspaceId: string;
  verdict?: CarriedVerdict;
  release?: CarriedRelease;
}

export async function enqueueDispatch(message: DispatchMessage, queue: QueueTarget = defaultQueue()): Promise<void> {
  await queue.sqs.send(new SendMessageCommand({ QueueUrl: queue.queueUrl, MessageBody: JSON.stringify(message), MessageGroupId: tenantGroup(message.workspaceId) }));
}

/**
 * Puts dispatch messages on the queue again, each held back its `delaySeconds`: new messages, so
 * their receive counts start afresh. Returns the positions of the messages the queue did not take.
 */
export async function requeueDispatches(messages: readonly { message: DispatchMessage; delaySeconds: number }[], queue: QueueTarget = defaultQueue()): Promise<number[]> {
  return [...(await sendBatched(queue, messages.map(({ message, delaySeconds }) => ({ body: message, delaySeconds })))).keys()];
}
