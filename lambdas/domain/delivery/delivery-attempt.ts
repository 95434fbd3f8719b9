import { randomUUID } from 'node:crypto';
import type { AttributeValue } from '@aws-sdk/client-dynamodb';
import { GetCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { unmarshall } from '@aws-sdk/util-dynamodb';
import { defaultStore } from '../../shared/default-store';
import type { Store } from '../../shared/store';
import { keys } from '../../shared/table';
import { isConditionFailed, transactWrite, untilAnswered, type Write } from '../../shared/writes';
import type { Dispatch } from '../messages/dispatch';
import { both, getDispatchById, sequenceStep, toDispatch, type DispatchChange, type SequenceMode } from '../messages/dispatch-repository';
import { writesEvents } from '../webhooks/event-gate';
import { outboxPut } from '../webhooks/outbox-item';
import { messageStatusEvent } from '../webhooks/webhook-event';
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
 * recognise itself when an earlier try did get through. `workspaceId` (the queue message's)
 * spares a read to learn whether the workspace takes webhook events.
 */
export async function claimDispatch(dispatchId: string, now: Date, store: Store = defaultStore(), workspaceId?: string): Promise<ClaimResult> {
  const attemptId = randomUUID();
  const owner = workspaceId ?? (await getDispatchById(dispatchId, store, true))?.workspaceId;
  if (owner && (await writesEvents(owner, store))) return claimWithEvent(dispatchId, attemptId, now, store);
  return untilAnswered(async () => {
    try {
      const { Attributes = {} } = await store.db.send(new UpdateCommand({ ...claimUpdate(dispatchId, attemptId, now, undefined).Update, TableName: store.tableName, ReturnValues: 'ALL_NEW', ReturnValuesOnConditionCheckFailure: 'ALL_OLD' }));
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

const CLAIM_ATTEMPTS = 3;

/**
 * The claim with its `message.status.updated` event: the event carries the body after the claim,
 * so the claim is computed from a read and holds on the sequence read (decision 77). A claim
 * whose answer was lost recognises itself on the next read by its `attemptId`.
 */
async function claimWithEvent(dispatchId: string, attemptId: string, now: Date, store: Store): Promise<ClaimResult> {
  for (let attempt = 1; ; attempt++) {
    const { Item } = await store.db.send(new GetCommand({ TableName: store.tableName, Key: keys.dispatch(dispatchId), ConsistentRead: true }));
    const current = Item && toDispatch(Item);
    if (!Item || !current) return { claimed: false, current: undefined };
    if (Item.attemptId === attemptId) return { claimed: true, dispatch: current };
    if (!(current.status === 'queued' || (current.status === 'processing' && !current.attemptStartedAt))) return { claimed: false, current };
    // Claimable but changed under us each time: let the queue bring the message back.
    if (attempt > CLAIM_ATTEMPTS) throw new Error(`Claim of dispatch ${dispatchId} kept conflicting`);
    const after: Dispatch = { ...current, status: 'processing', attemptStartedAt: now.toISOString(), updatedAt: now.toISOString(), attempts: (current.attempts ?? 0) + 1, sequence: current.sequence + 1 };
    const writes = { dispatch: claimUpdate(dispatchId, attemptId, now, current.sequence), outbox: outboxPut(current.workspaceId, messageStatusEvent(after, now)) };
    const result = await untilAnswered(() => transactWrite(store, writes), Date.now() + CLAIM_OUTCOME_DEADLINE_MS);
    if (result.committed) return { claimed: true, dispatch: after };
  }
}

/** The claim's write; `holdAt` is the sequence it was computed from, when its event rides along. */
function claimUpdate(dispatchId: string, attemptId: string, now: Date, holdAt: number | undefined): { Update: Extract<Write, { Update: unknown }>['Update'] } {
  const sequence = sequenceStep(holdAt);
  return {
    Update: {
      Key: keys.dispatch(dispatchId),
      UpdateExpression: `SET #status = :processing, attemptStartedAt = :now, attemptId = :attempt, updatedAt = :now, ${sequence.set} ADD attempts :one`,
      ConditionExpression: both('#status = :queued OR (#status = :processing AND attribute_not_exists(attemptStartedAt))', sequence.condition),
      ExpressionAttributeNames: { '#status': 'status', ...sequence.names },
      ExpressionAttributeValues: { ':processing': 'processing', ':queued': 'queued', ':now': now.toISOString(), ':attempt': attemptId, ':one': 1, ...sequence.values },
    },
  };
}

/** The provider certainly did not take the message (rate limited, 5xx): allow another attempt. */
export async function releaseClaim(dispatch: Dispatch, now: Date, store: Store = defaultStore()): Promise<void> {
  // Already moved on (a callback settled it), or someone else's attempt: nothing to release.
  await changeDispatch(dispatch.dispatchId, store, dispatch, (current, mode) =>
    current.status === 'processing' && current.attemptStartedAt === dispatch.attemptStartedAt ? { dispatch: releaseChange(current, now, mode) } : undefined,
  );
}

function releaseChange(dispatch: Dispatch, now: Date, mode: SequenceMode): DispatchChange {
  const sequence = sequenceStep(mode.hold ? dispatch.sequence : undefined);
  const after: Dispatch = { ...dispatch, updatedAt: now.toISOString(), sequence: dispatch.sequence + 1 };
  delete after.attemptStartedAt;
  return {
    write: {
      Update: {
        Key: keys.dispatch(dispatch.dispatchId),
        UpdateExpression: `SET updatedAt = :now, ${sequence.set} REMOVE attemptStartedAt, attemptId`,
        ConditionExpression: both('#status = :processing AND attemptStartedAt = :mine', sequence.condition),
        ExpressionAttributeNames: { '#status': 'status', ...sequence.names },
        ExpressionAttributeValues: { ':processing': 'processing', ':mine': dispatch.attemptStartedAt, ':now': now.toISOString(), ...sequence.values },
      },
    },
    after,
  };
}
