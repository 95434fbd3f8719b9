import { SendMessageCommand } from '@aws-sdk/client-sqs';
import { defaultQueue } from '../../shared/default-store';
import { MAX_QUEUE_DELAY_SECONDS, queueText, sendBatched, tenantGroup, type QueueTarget } from '../../shared/queue';
import type { StatusMove } from './dispatch-repository';

/**
 * The provider's verdict on an attempt, when the table did not take it in time: the message then
 * carries it, and its consumer writes it rather than delivering (decision 161). It names its claim
 * (`ofClaim`), and lands only while no later claim was taken (decision 211); one carried before
 * that names none.
 */
export type CarriedVerdict = Pick<StatusMove, 'occurredAt' | 'providerMessageId' | 'senderPhoneNumberId' | 'failureCode' | 'event' | 'ofClaim' | 'judgedByReports'> & { to: 'sent' | 'failed' | 'unknown' };

/**
 * A release of an attempt's claim (the provider said "later", or refused our token, or the table
 * answered none of the claim's tries) that the table did not take in time: its consumer gives the
 * claim back, then queues the dispatch again for its delivery (decisions 161, 164, 218).
 */
export interface CarriedRelease {
  attemptStartedAt: string;
  /** The claim's own id, for a claim whose answers were lost: only a claim holding it is given back (decision 218). */
  attemptId?: string;
  /** The provider's "later": counted on the dispatch with the release (`laterAnswers`). */
  providerSaidLater: boolean;
  /** That "later" said the provider is down: counted in `outageAnswers` too (decision 231). Absent (a message from before it was kept): another "later". */
  outage?: true;
  /** The back-off the provider's answer earned: the delivery waits this long. Absent (a message from before it was kept): none. */
  retryAfterSeconds?: number;
}

/** What the deliver consumer receives: the dispatch to deliver, nothing it could read stale. */
export interface DispatchMessage {
  dispatchId: string;
  workspaceId: string;
  verdict?: CarriedVerdict;
  release?: CarriedRelease;
}

/** Puts the message on the queue, held back `delaySeconds` (at most SQS's 15 minutes). */
export async function enqueueDispatch(message: DispatchMessage, queue: QueueTarget = defaultQueue(), delaySeconds = 0): Promise<void> {
  await queue.sqs.send(
    new SendMessageCommand({
      QueueUrl: queue.queueUrl,
      MessageBody: queueText(message),
      MessageGroupId: tenantGroup(message.workspaceId),
      ...(delaySeconds > 0 ? { DelaySeconds: Math.min(MAX_QUEUE_DELAY_SECONDS, delaySeconds) } : {}),
    }),
  );
}

/**
 * Puts dispatch messages on the queue again, each held back its `delaySeconds`: new messages, so
 * their receive counts start afresh. Returns the positions of the messages the queue did not take.
 */
export async function requeueDispatches(messages: readonly { message: DispatchMessage; delaySeconds: number }[], queue: QueueTarget = defaultQueue()): Promise<number[]> {
  return [...(await sendBatched(queue, messages.map(({ message, delaySeconds }) => ({ body: message, delaySeconds })))).keys()];
}
