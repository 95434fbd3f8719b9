import { isDependencyUnavailable } from '../../shared/dependency-errors';
import { ConflictError, ServiceUnavailableError } from '../../shared/errors';
import { logger } from '../../shared/logger';
import type { Store } from '../../shared/store';
import type { ItemKey } from '../../shared/table';
import { CONFLICT_RETRIES, conflictPause, isTransactionConflict, transactWrite, untilAnswered, writeIfAllowed } from '../../shared/writes';
import { conversationMessageWrites, type Placement } from '../conversations/conversation-item';
import { dailySendClaim, dailySendPromised, dailySendRelease } from './daily-send';
import type { Dispatch, DraftedDispatch } from './dispatch';
import { dispatchCreate, enqueueFailed, getDispatchById } from './dispatch-repository';
import { getIdempotencyRecord, idempotencyClaim, idempotencyRelease, replayableResponse, type IdempotencyRecord } from './idempotency';

/**
 * The send's one transaction, each write built by its item's module: the dispatch, its message in
 * its conversation, and what the send claims beside them. A cancellation is read by write name.
 */

/** What a send claims beside its dispatch; each is left out when the request does not ask for it. */
export interface SendClaims {
  idempotency?: IdempotencyRecord;
  /** The day's one send of this template to this number (`dedupe: wib-day`). */
  dailySend?: ItemKey;
}

export type SendOutcome = { outcome: 'committed' } | { outcome: 'replayed'; response: IdempotencyRecord['response'] } | { outcome: 'duplicate' };

/**
 * How long a send keeps asking an unreachable table whether its transaction committed: long
 * enough to ride out a blip, well inside the send function's 10 s timeout.
 */
export const WRITE_OUTCOME_DEADLINE_MS = 6_000;

/**
 * Commits the send's transaction: `committed` (now, or on an earlier try whose answer was lost),
 * `replayed` when the Idempotency-Key holds an earlier request's finished result, `duplicate`
 * when the daily-send marker was taken. A transaction the table does not answer may have
 * committed, so it is tried again until the table answers or WRITE_OUTCOME_DEADLINE_MS passes;
 * had it committed, the new try is refused on the dispatch's own condition. Past the deadline the
 * error stands (503), and a transaction that did commit is left to the reconciler.
 * A transaction cancelled because another was writing one of its items (two sends to one
 * conversation) wrote nothing, and is tried again after a pause until the same deadline; then it
 * is 503, never a 409 that tells a caller without an Idempotency-Key not to retry.
 */
export async function commitSend(dispatch: DraftedDispatch, claims: SendClaims, now: Date, store: Store): Promise<SendOutcome> {
  let placement: Placement = 'latest';
  const deadline = Date.now() + WRITE_OUTCOME_DEADLINE_MS;
  for (let attempt = 1; ; attempt++) {
    // Built for each try: the conversation's `updatedAt` is the try's own time, never an earlier try's
    // under a change another write recorded meanwhile.
    const result = await untilAnswered(() => transactWrite(store, sendWrites(dispatch, claims, now, placement)), deadline, {
      onUnanswered: (error) => logger.warn('Send transaction unanswered; trying it again', { error: error as Error }),
      abandonAtDeadline: true,
    });
    if (result.committed) return { outcome: 'committed' };
    const { refused } = result;
    // The dispatch id is new: only an earlier try of this transaction, whose answer was lost, wrote it.
    if (refused.dispatch === 'ConditionalCheckFailed') return { outcome: 'committed' };
    if (refused.conversation === 'ConditionalCheckFailed') {
      // A newer message is the conversation's last already (a send that began earlier, a customer's
      // reply): this one is counted, and moves neither the preview nor the list order back.
      placement = 'earlier';
      continue;
    }
    if (refused.idempotency && claims.idempotency) {
      const record = await getIdempotencyRecord(dispatch.workspaceId, claims.idempotency.key, store);
      // No record: its request failed and released the key, or is still writing it. Try to claim it ourselves.
      if (record) {
        // Another request's key on a send already made today: the duplicate is check 7, the key check 8 (docs/api.md#send-a-message).
        if (record.fingerprint !== claims.idempotency.fingerprint && refused.dailySend === 'ConditionalCheckFailed') {
          const promise = await promiseToDuplicate(claims.dailySend!, store);
          if (promise === 'promised') return { outcome: 'duplicate' };
          if (promise === 'gone') continue;
        } else return { outcome: 'replayed', response: replayableResponse(record, claims.idempotency.fingerprint, now) };
      }
    } else if (refused.dailySend === 'ConditionalCheckFailed') {
      const promise = await promiseToDuplicate(claims.dailySend!, store);
      if (promise === 'promised') return { outcome: 'duplicate' };
      // The send that had the day gave it back meanwhile (its queue refused it): this one may take it.
      if (promise === 'gone') continue;
    } else if (!Object.values(refused).includes('TransactionConflict')) {
      throw new Error(`Send transaction cancelled: ${JSON.stringify(refused)}`);
    }
    if (attempt > CONFLICT_RETRIES || Date.now() >= deadline) {
      // The key's own record kept being written by another request: the contract's answer to a key still being processed.
      if (refused.idempotency) throw new ConflictError('idempotency_conflict', 'Concurrent requests are writing this message; retry shortly');
      throw new ServiceUnavailableError();
    }
    // A concurrent transaction held one of the items (two sends to one conversation): try again.
    await conflictPause(attempt);
  }
}

/**
 * Whether the day's send stands for a duplicate about to be told so (409, "already sent today"):
 * marked, so the send that has it, should its queue then refuse the message, keeps it for the
 * reconciler to queue rather than giving the day back as never sent (`releaseSend`). `gone` when
 * the marker is: that send gave it back, and the duplicate is tried again as a send. `busy` when a
 * transaction in flight holds the marker (another duplicate's claim, or that send's release),
 * which DynamoDB refuses a lone write for and the SDK does not retry: the send pauses as for any
 * conflict, within its retries and deadline, and decides again.
 */
async function promiseToDuplicate(dailySend: ItemKey, store: Store): Promise<'promised' | 'gone' | 'busy'> {
  try {
    return (await writeIfAllowed(store, dailySendPromised(dailySend))) ? 'promised' : 'gone';
  } catch (error) {
    if (isTransactionConflict(error)) return 'busy';
    throw error;
  }
}

/** How long a send keeps asking an unreachable table to give its writes back: the send's own retries have used up to 6 s of its 10. */
export const RELEASE_DEADLINE_MS = 2_500;

/**
 * The queue answered an error: the dispatch becomes `failed` and the claims are given back, so a
 * retry with the same Idempotency-Key, or on the same day, can succeed (`released`). An error is
 * not always a refusal: SQS may have kept an earlier try whose answer was lost, and a consumer may
 * already have claimed the dispatch. Then the dispatch is no longer `queued`, nothing is released,
 * and the message is on its way (`taken`): telling the caller "nothing will be sent" would have it
 * send the message again. A release the table does not answer is asked again until
 * RELEASE_DEADLINE_MS (its retry is refused on the dispatch, and the dispatch then says whether
 * the earlier try was applied); one never answered leaves the dispatch `queued` for the reconciler
 * to queue (`unreleased`): the message will be sent, so it is not the caller's to send again.
 * So does one whose day's send a duplicate was answered 409 for meanwhile (`promised`): that caller
 * was told the message is sent today.
 */
export async function releaseSend(dispatch: Dispatch, claims: SendClaims, now: Date, store: Store): Promise<'released' | 'taken' | 'unreleased' | 'promised'> {
  const writes = {
    dispatch: enqueueFailed(dispatch, now).write,
    idempotency: claims.idempotency && idempotencyRelease(dispatch.workspaceId, claims.idempotency.key),
    dailySend: claims.dailySend && dailySendRelease(claims.dailySend),
  };
  const deadline = Date.now() + RELEASE_DEADLINE_MS;
  const unanswered = (error: unknown) => logger.warn('Send release unanswered; asking again', { dispatchId: dispatch.dispatchId, error: error as Error });
  for (let attempt = 1; ; attempt++) {
    let result;
    try {
      result = await untilAnswered(() => transactWrite(store, writes), deadline, { onUnanswered: unanswered, abandonAtDeadline: true });
    } catch (error) {
      if (isDependencyUnavailable(error)) return 'unreleased';
      throw error;
    }
    if (result.committed) return 'released';
    if (result.refused.dispatch === 'ConditionalCheckFailed') {
      // A consumer took it, or an earlier try of this release was applied and its answer lost.
      const current = await untilAnswered(() => getDispatchById(dispatch.dispatchId, store, true), deadline).catch(() => undefined);
      if (!current) return 'unreleased';
      return current.status === 'failed' && current.failureCode === 'enqueue_failed' ? 'released' : 'taken';
    }
    // A duplicate was answered 409 for this send: it stays queued, and the reconciler queues it.
    if (result.refused.dailySend === 'ConditionalCheckFailed') return 'promised';
    // Only the dispatch's claim can race this (the consumer taking it): ask again after it.
    if (!Object.values(result.refused).includes('TransactionConflict') || attempt > CONFLICT_RETRIES) {
      throw new Error(`Send release cancelled: ${JSON.stringify(result.refused)}`);
    }
    await conflictPause(attempt);
  }
}

/** The transaction's writes by name, in the order they are sent. */
function sendWrites(dispatch: DraftedDispatch, claims: SendClaims, now: Date, placement: Placement) {
  const conversation = conversationMessageWrites(
    {
      workspaceId: dispatch.workspaceId,
      channel: dispatch.channel,
      contactPhone: dispatch.to,
      contactName: dispatch.contactName,
      messageId: dispatch.dispatchId,
      direction: 'outbound',
      type: 'template',
      text: dispatch.renderedText,
      createdAt: dispatch.createdAt,
      dispatchId: dispatch.dispatchId,
      templateId: dispatch.templateId,
    },
    placement,
  );
  return {
    dispatch: dispatchCreate(dispatch),
    conversationMessage: conversation.message,
    conversation: conversation.conversation,
    idempotency: claims.idempotency && idempotencyClaim(dispatch.workspaceId, claims.idempotency, now),
    dailySend: claims.dailySend && dailySendClaim(claims.dailySend, dispatch.dispatchId, now),
  };
}
