import { randomUUID } from 'node:crypto';
import type { AttributeValue } from '@aws-sdk/client-dynamodb';
import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { unmarshall } from '@aws-sdk/util-dynamodb';
import { defaultStore } from '../../shared/default-store';
import type { Store } from '../../shared/store';
import { keys } from '../../shared/table';
import { isConditionFailed, untilAnswered, type Write } from '../../shared/writes';
import type { Dispatch } from '../messages/dispatch';
import { sequenceStep, toDispatch, type DispatchChange } from '../messages/dispatch-repository';
import { changeDispatch } from './dispatch-status';

/**
 * The delivery attempt: the claim a consumer takes on a dispatch before it calls the provider
 * (`attemptStartedAt`, `attemptId`, `attempts` on the dispatch item), and its release.
 */

export type ClaimResult = { claimed: true; dispatch: Dispatch } | { claimed: false; current: Dispatch | undefined };

/** How long a consumer keeps asking an unreachable table whether its claim went through (its timeout is 30 s). */
export const CLAIM_OUTCOME_DEADLINE_MS = 10_000;

/**
 * Claims a dispatch for one provider attempt: `queued → processing`, or a `processing` one whose
 * previous attempt was released. Sets `attemptStartedAt`, so a redelivered message, or a
 * consumer that crashed mid-call, can never cause a second provider call.
 *
 * A claim the table did not answer may have been taken all the same, and a taken claim is never
 * given back; so the claim is tried again until the table answers, and `attemptId` lets it
 * recognise itself when an earlier try did get through; a try still in flight at the deadline is
 * waited for, since no later receive could tell the claim it took from a stranger's (the SDK's
 * timeouts bound it: decision 162). Its `message.status.updated` event is
 * the stream record of this one write (decision 89).
 */
export async function claimDispatch(dispatchId: string, now: Date, store: Store = defaultStore(), sendsFrom?: string): Promise<ClaimResult> {
  const attemptId = randomUUID();
  return untilAnswered(async () => {
    try {
      const { Attributes = {} } = await store.db.send(new UpdateCommand({ ...claimUpdate(dispatchId, attemptId, now, sendsFrom).Update, TableName: store.tableName, ReturnValues: 'ALL_NEW', ReturnValuesOnConditionCheckFailure: 'ALL_OLD' }));
      return { claimed: true, dispatch: toDispatch(Attributes) };
    } catch (error) {
      if (!isConditionFailed(error)) throw error;
      // The document client does not unmarshall what a failed condition returns.
      const raw = (error as { Item?: Record<string, AttributeValue> }).Item;
      const item = raw ? unmarshall(raw) : undefined;
      if (item?.attemptId === attemptId) return { claimed: true, dispatch: toDispatch(item) };
      return { claimed: false, current: item ? toDispatch(item) : undefined };
    }
  }, Date.now() + CLAIM_OUTCOME_DEADLINE_MS);
}

/**
 * The claim's write. It names the number the attempt sends from, the workspace's own (decision 181)
 * or the stack's default one (decision 219): from the claim on, WhatsApp's reports of the message
 * apply by that number, a timed-out answer's `unknown` and a dead claim's included, whoever owns
 * it or whatever the workspace names by then, and a dead claim is judged by that number's reports.
 * Without one (no default number configured) it names none, and an earlier attempt's is removed.
 */
function claimUpdate(dispatchId: string, attemptId: string, now: Date, sendsFrom: string | undefined): { Update: Extract<Write, { Update: unknown }>['Update'] } {
  const sequence = sequenceStep();
  const own = ['#status = :processing', 'attemptStartedAt = :now', 'attemptId = :attempt', 'updatedAt = :now', ...(sendsFrom ? ['senderPhoneNumberId = :sendsFrom'] : [])];
  return {
    Update: {
      Key: keys.dispatch(dispatchId),
      UpdateExpression: sequence.expression(own, sendsFrom ? [] : ['senderPhoneNumberId'], 'attempts :one'),
      ConditionExpression: '#status = :queued OR (#status = :processing AND attribute_not_exists(attemptStartedAt))',
      ExpressionAttributeNames: { '#status': 'status', ...sequence.names },
      ExpressionAttributeValues: { ':processing': 'processing', ':queued': 'queued', ':now': now.toISOString(), ':attempt': attemptId, ':one': 1, ...(sendsFrom ? { ':sendsFrom': sendsFrom } : {}), ...sequence.values },
    },
  };
}

/**
 * The provider certainly did not take the message (rate limited, 5xx, a refused token), or a dead
 * attempt never reached it: allow another attempt. `providerSaidLater` counts the answer on the
 * dispatch (`laterAnswers`), in the same write. False when there was nothing to release.
 */
export async function releaseClaim(dispatch: Dispatch, now: Date, store: Store = defaultStore(), providerSaidLater = false): Promise<boolean> {
  return releaseAttempt(dispatch.dispatchId, dispatch.attemptStartedAt, now, store, providerSaidLater, dispatch);
}

/** The same, for the attempt that started at `attemptStartedAt`, the dispatch read afresh (a release carried on the queue). */
export async function releaseAttempt(dispatchId: string, attemptStartedAt: string | undefined, now: Date, store: Store = defaultStore(), providerSaidLater = false, known?: Dispatch): Promise<boolean> {
  // Already moved on (a callback settled it), or someone else's attempt: nothing to release (false).
  const released = await changeDispatch(dispatchId, store, known, (current) =>
    current.status === 'processing' && current.attemptStartedAt === attemptStartedAt ? releaseChange(current, now, providerSaidLater) : undefined,
  );
  return released !== undefined;
}

function releaseChange(dispatch: Dispatch, now: Date, providerSaidLater: boolean): DispatchChange {
  const sequence = sequenceStep();
  const after: Dispatch = { ...dispatch, updatedAt: now.toISOString(), sequence: dispatch.sequence + 1, ...(providerSaidLater ? { laterAnswers: (dispatch.laterAnswers ?? 0) + 1 } : {}) };
  delete after.attemptStartedAt;
  return {
    write: {
      Update: {
        Key: keys.dispatch(dispatch.dispatchId),
        UpdateExpression: sequence.expression(['updatedAt = :now'], ['attemptStartedAt', 'attemptId'], providerSaidLater ? 'laterAnswers :one' : undefined),
        ConditionExpression: '#status = :processing AND attemptStartedAt = :mine',
        ExpressionAttributeNames: { '#status': 'status', ...sequence.names },
        ExpressionAttributeValues: { ':processing': 'processing', ':mine': dispatch.attemptStartedAt, ':now': now.toISOString(), ...(providerSaidLater ? { ':one': 1 } : {}), ...sequence.values },
      },
    },
    after,
  };
}
