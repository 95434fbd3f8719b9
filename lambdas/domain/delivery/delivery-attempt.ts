import { randomUUID } from 'node:crypto';
import type { AttributeValue } from '@aws-sdk/client-dynamodb';
import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { unmarshall } from '@aws-sdk/util-dynamodb';
import { defaultStore } from '../../shared/default-store';
import type { Store } from '../../shared/store';
import { isDependencyUnavailable, wroteNothing } from '../../shared/dependency-errors';
import { keys, tableDefinition } from '../../shared/table';
import { isConditionFailed, untilAnswered, type Write } from '../../shared/writes';
import { isGivenBack, type Dispatch } from '../messages/dispatch';
import { madeAttributes, sequenceStep, toDispatch, type DispatchChange } from '../messages/dispatch-repository';
import { changeDispatch } from './dispatch-status';

/**
 * The delivery attempt: the claim a consumer takes on a dispatch before it calls the provider
 * (`attemptStartedAt`, `attemptId`, `attempts` on the dispatch item), and its release.
 */

/** `attemptId`: the claim's own id, which a release of a claim taken too late for its call holds to (decision 225). */
export type ClaimResult = { claimed: true; dispatch: Dispatch; attemptId: string } | { claimed: false; current: Dispatch | undefined };

/**
 * How long a consumer keeps asking an unreachable table whether its claim went through (its timeout
 * is 30 s), unless its caller's deadline comes first (decision 225).
 */
export const CLAIM_OUTCOME_DEADLINE_MS = 10_000;

/** One attempt's claim: when it was taken, and, for a release that must tell it from another's, its own id. */
export interface AttemptClaim {
  attemptStartedAt: string | undefined;
  attemptId?: string;
}

/**
 * The table answered none of a claim's tries by CLAIM_OUTCOME_DEADLINE_MS, and one of them may have
 * been applied: the claim may stand under `claim.attemptId`, which only this attempt knows, so no
 * later receive could take it or tell it from a stranger's. The provider was certainly not asked:
 * the claim is the attempt's to give back (decision 218). `cause` is the table's last error.
 */
export class UnansweredClaim extends Error {
  override name = 'UnansweredClaim';
  constructor(
    readonly claim: { attemptStartedAt: string; attemptId: string },
    cause: unknown,
  ) {
    super('The table answered none of the claim’s tries before its deadline', { cause });
  }
}

/**
 * Claims a dispatch for one provider attempt: `queued → processing`, or a `processing` one whose
 * previous attempt was released, or an `unknown` given back to be sent again, left `unknown`
 * (decision 227). Sets `attemptStartedAt`, so a redelivered message, or a
 * consumer that crashed mid-call, can never cause a second provider call.
 *
 * A claim the table did not answer may have been taken all the same, and no later receive could
 * tell it from a stranger's; so the claim is tried again until the table answers, and `attemptId`
 * lets it recognise itself when an earlier try did get through; a try still in flight at the
 * deadline is waited for (the SDK's timeouts bound it: decision 162). Still unanswered then, a
 * claim one of whose tries may have been applied throws `UnansweredClaim`, which names it for its
 * release (decision 218). Its `message.status.updated` event is the stream record of this one
 * write (decision 89); an `unknown`'s claim makes none. `deadline` (epoch ms) ends the tries sooner: past it, a claim leaves its
 * caller no time for what it was taken for (decision 225).
 */
export async function claimDispatch(dispatchId: string, now: Date, store: Store = defaultStore(), sendsFrom?: string, deadline = Infinity): Promise<ClaimResult> {
  const attemptId = randomUUID();
  let perhapsTaken = false;
  const unanswered = (error: unknown) => (perhapsTaken ||= isDependencyUnavailable(error) && !wroteNothing(error));
  try {
    return await untilAnswered(() => claimTry(dispatchId, attemptId, now, store, sendsFrom), Math.min(Date.now() + CLAIM_OUTCOME_DEADLINE_MS, deadline), { onUnanswered: unanswered });
  } catch (error) {
    unanswered(error);
    if (perhapsTaken) throw new UnansweredClaim({ attemptStartedAt: now.toISOString(), attemptId }, error);
    throw error;
  }
}

/** One try of the claim: an answer, taken or refused, recognising an earlier try of its own that was applied. */
async function claimTry(dispatchId: string, attemptId: string, now: Date, store: Store, sendsFrom: string | undefined): Promise<ClaimResult> {
  const first = await claimWrite(claimUpdate(dispatchId, attemptId, now, sendsFrom), attemptId, store);
  // An `unknown` given back to be sent again is claimed as it is: its status stays (decision 227).
  if (!first.claimed && first.current && isGivenBack(first.current)) return claimWrite(unknownClaimUpdate(dispatchId, attemptId, now, sendsFrom), attemptId, store);
  return first;
}

async function claimWrite(write: ReturnType<typeof claimUpdate>, attemptId: string, store: Store): Promise<ClaimResult> {
  try {
    const { Attributes = {} } = await store.db.send(new UpdateCommand({ ...write.Update, TableName: store.tableName, ReturnValues: 'ALL_NEW', ReturnValuesOnConditionCheckFailure: 'ALL_OLD' }));
    return { claimed: true, dispatch: toDispatch(Attributes), attemptId };
  } catch (error) {
    if (!isConditionFailed(error)) throw error;
    // The document client does not unmarshall what a failed condition returns.
    const raw = (error as { Item?: Record<string, AttributeValue> }).Item;
    const item = raw ? unmarshall(raw) : undefined;
    if (item?.attemptId === attemptId) return { claimed: true, dispatch: toDispatch(item), attemptId };
    return { claimed: false, current: item ? toDispatch(item) : undefined };
  }
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
 * The claim of an `unknown`'s retry (decision 227): the attempt as any claim's, the status and the
 * GET body as they were, so no event tells of it and the status never moves back. Only while it is
 * given back and keeps its pending entry: an `unknown` settled for good (no entry) is never claimed.
 */
function unknownClaimUpdate(dispatchId: string, attemptId: string, now: Date, sendsFrom: string | undefined): ReturnType<typeof claimUpdate> {
  const { partitionKey } = tableDefinition.indexes.gsi4;
  const own = ['attemptStartedAt = :now', 'attemptId = :attempt', ...(sendsFrom ? ['senderPhoneNumberId = :sendsFrom'] : [])];
  const remove = ['givenBackAt', ...(sendsFrom ? [] : ['senderPhoneNumberId']), ...madeAttributes()];
  return {
    Update: {
      Key: keys.dispatch(dispatchId),
      UpdateExpression: `SET ${own.join(', ')} ADD attempts :one REMOVE ${remove.join(', ')}`,
      ConditionExpression: '#status = :unknown AND attribute_not_exists(attemptStartedAt) AND attribute_exists(givenBackAt) AND begins_with(#entry, :pending)',
      ExpressionAttributeNames: { '#status': 'status', '#entry': partitionKey },
      ExpressionAttributeValues: { ':unknown': 'unknown', ':pending': 'PENDING#', ':now': now.toISOString(), ':attempt': attemptId, ':one': 1, ...(sendsFrom ? { ':sendsFrom': sendsFrom } : {}) },
    },
  };
}

/**
 * The provider certainly did not take the message (rate limited, 5xx, a refused token), or a dead
 * attempt never reached it: allow another attempt. `providerSaidLater` counts the answer on the
 * dispatch (`laterAnswers`), in the same write; `'outage'`, an answer that said the provider is
 * down, in `outageAnswers` too, whose budget is its own (decision 231). False when there was
 * nothing to release.
 */
export async function releaseClaim(dispatch: Dispatch, now: Date, store: Store = defaultStore(), providerSaidLater: ProviderSaidLater = false): Promise<boolean> {
  return releaseAttempt(dispatch.dispatchId, { attemptStartedAt: dispatch.attemptStartedAt }, now, store, providerSaidLater, dispatch);
}

/**
 * The same, for the attempt whose claim is `claim`, the dispatch read afresh (a release carried on
 * the queue). A claim named by its `attemptId` too (one whose answers were lost) is given back only
 * while it holds that id: another attempt's claim taken in the same millisecond is not its own.
 */
export async function releaseAttempt(dispatchId: string, claim: AttemptClaim, now: Date, store: Store = defaultStore(), providerSaidLater: ProviderSaidLater = false, known?: Dispatch): Promise<boolean> {
  // Already moved on (a callback settled it), or someone else's attempt: nothing to release (false).
  const released = await changeDispatch(dispatchId, store, known, (current) =>
    (current.status === 'processing' || current.status === 'unknown') && current.attemptStartedAt === claim.attemptStartedAt ? releaseChange(current, now, providerSaidLater, claim.attemptId) : undefined,
  );
  return released !== undefined;
}

/** The provider's answer a release counts: none, a "later", or a "later" that said it is down. */
export type ProviderSaidLater = boolean | 'outage';

function releaseChange(dispatch: Dispatch, now: Date, providerSaidLater: ProviderSaidLater, attemptId: string | undefined): DispatchChange {
  if (dispatch.status === 'unknown') return unknownReleaseChange(dispatch, now, providerSaidLater, attemptId);
  const sequence = sequenceStep();
  const answers = answersCounted(dispatch, providerSaidLater);
  const after: Dispatch = { ...dispatch, updatedAt: now.toISOString(), sequence: dispatch.sequence + 1, ...answers.counts };
  delete after.attemptStartedAt;
  return {
    write: {
      Update: {
        Key: keys.dispatch(dispatch.dispatchId),
        UpdateExpression: sequence.expression(['updatedAt = :now'], ['attemptStartedAt', 'attemptId'], answers.add),
        ConditionExpression: `#status = :processing AND attemptStartedAt = :mine${attemptId ? ' AND attemptId = :mineId' : ''}`,
        ExpressionAttributeNames: { '#status': 'status', ...sequence.names },
        ExpressionAttributeValues: {
          ':processing': 'processing',
          ':mine': dispatch.attemptStartedAt,
          ':now': now.toISOString(),
          ...(attemptId ? { ':mineId': attemptId } : {}),
          ...answers.values,
          ...sequence.values,
        },
      },
    },
    after,
  };
}

/** What a release adds to the provider's answers: the "later" counted (decision 132), an outage's in its own count too (decision 231). */
function answersCounted(dispatch: Dispatch, providerSaidLater: ProviderSaidLater): { counts: Partial<Dispatch>; add?: string; values: Record<string, number> } {
  if (!providerSaidLater) return { counts: {}, values: {} };
  const outage = providerSaidLater === 'outage';
  return {
    counts: { laterAnswers: (dispatch.laterAnswers ?? 0) + 1, ...(outage ? { outageAnswers: (dispatch.outageAnswers ?? 0) + 1 } : {}) },
    add: `laterAnswers :one${outage ? ', outageAnswers :one' : ''}`,
    values: { ':one': 1 },
  };
}

/**
 * The release of an `unknown`'s retry (decision 227): given back again, `unknown` as it was, its
 * GET body too (no event); `givenBackAt` is the reconciler's clock for queuing it again.
 */
function unknownReleaseChange(dispatch: Dispatch, now: Date, providerSaidLater: ProviderSaidLater, attemptId: string | undefined): DispatchChange {
  const answers = answersCounted(dispatch, providerSaidLater);
  const after: Dispatch = { ...dispatch, givenBackAt: now.toISOString(), ...answers.counts };
  delete after.attemptStartedAt;
  return {
    write: {
      Update: {
        Key: keys.dispatch(dispatch.dispatchId),
        UpdateExpression: `SET givenBackAt = :now${answers.add ? ` ADD ${answers.add}` : ''} REMOVE ${['attemptStartedAt', 'attemptId', ...madeAttributes()].join(', ')}`,
        ConditionExpression: `#status = :unknown AND attemptStartedAt = :mine${attemptId ? ' AND attemptId = :mineId' : ''}`,
        ExpressionAttributeNames: { '#status': 'status' },
        ExpressionAttributeValues: {
          ':unknown': 'unknown',
          ':mine': dispatch.attemptStartedAt,
          ':now': now.toISOString(),
          ...(attemptId ? { ':mineId': attemptId } : {}),
          ...answers.values,
        },
      },
    },
    after,
  };
}
