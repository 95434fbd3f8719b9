import { DeleteCommand, PutCommand, TransactWriteCommand, UpdateCommand, type TransactWriteCommandInput } from '@aws-sdk/lib-dynamodb';
import { isDependencyUnavailable, isThrottledTransaction } from './dependency-errors';
import { ServiceUnavailableError } from './errors';
import type { Store } from './store';
import { answeredBy } from './answered-by';
import { outerConflictDeadline, withinConflictDeadline } from './conflict-deadline';

type TransactItem = NonNullable<TransactWriteCommandInput['TransactItems']>[number];
type WithoutTable<T> = Omit<NonNullable<T>, 'TableName'>;

/**
 * A write as an item module builds it; the store adds its table when the write is sent. A
 * `ConditionCheck` writes nothing: it holds a transaction to a condition on another item.
 */
export type Write =
  | { Put: WithoutTable<TransactItem['Put']> }
  | { Update: WithoutTable<TransactItem['Update']> }
  | { Delete: WithoutTable<TransactItem['Delete']> }
  | { ConditionCheck: WithoutTable<TransactItem['ConditionCheck']> };

/** A transaction's writes by name; a name may stand for several writes, or for none (left out). */
export type NamedWrites<N extends string> = { [K in N]?: Write | readonly Write[] };

/**
 * What a transaction came to. A cancelled one names, for each named write that DynamoDB refused,
 * why (`ConditionalCheckFailed`, `TransactionConflict`, …); writes that were fine are left out.
 */
export type TransactionResult<N extends string> = { committed: true } | { committed: false; refused: { [K in N]?: string } };

/** True when a write failed only because its condition did not hold. */
export function isConditionFailed(error: unknown): boolean {
  return errorName(error) === 'ConditionalCheckFailedException';
}

/** True when a write failed only because a transaction in flight was writing its item. */
export function isTransactionConflict(error: unknown): boolean {
  return errorName(error) === 'TransactionConflictException';
}

/** True when every write DynamoDB refused in a cancelled transaction was refused for a transaction in flight. */
export const onlyConflicts = (refused: Record<string, string | undefined>): boolean => {
  const codes = Object.values(refused);
  return codes.length > 0 && codes.every((code) => code === 'TransactionConflict');
};

/**
 * DynamoDB refuses a write touching an item that another transaction is writing (a cancelled
 * transaction's `TransactionConflict`, or TransactionConflictException), and the SDK does not
 * retry either. Every write that can meet one pauses with `conflictPause` before trying again: a
 * random pause, 25 ms doubling to 1 s (full jitter, so contenders spread out). Status changes
 * (one write of the dispatch, held by its send's or its release's transaction) and the report projection's window sums
 * (a workspace's rollups, written by each stream shard's windows) try up to CONFLICT_RETRIES
 * times; status changes also for at most CONFLICT_WAIT_MS, or until the deadline of the request
 * they are part of (`conflictDeadline`, decision 193), which leaves the webhook function (10 s)
 * time to answer.
 */
export const CONFLICT_RETRIES = 20;
export const CONFLICT_WAIT_MS = 8_000;

/** When a wait for conflicts starting now gives up: after CONFLICT_WAIT_MS, or at the deadline of the work it is part of. */
export const conflictDeadline = (): number => Math.min(Date.now() + CONFLICT_WAIT_MS, outerConflictDeadline() ?? Infinity);
export const conflictPause = (retry: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, Math.random() * Math.min(1_000, 25 * 2 ** retry)));

/** Not `instanceof Error`: an error may come from another realm (see dependency-errors.ts). */
const errorName = (error: unknown) => (typeof error === 'object' && error !== null && 'name' in error ? error.name : undefined);

function withTable(write: Write, tableName: string): TransactItem {
  if ('Put' in write) return { Put: { ...write.Put, TableName: tableName } };
  if ('Update' in write) return { Update: { ...write.Update, TableName: tableName } };
  if ('Delete' in write) return { Delete: { ...write.Delete, TableName: tableName } };
  return { ConditionCheck: { ...write.ConditionCheck, TableName: tableName } };
}

/**
 * Writes `writes` in one transaction, in the order given. A cancellation is an answer, not an
 * error: DynamoDB's reasons come back by write name, so callers decide on names, never positions.
 * A throttled one is no answer (the table decided nothing): it throws, as a dependency error.
 */
export async function transactWrite<N extends string>(store: Store, writes: NamedWrites<N>): Promise<TransactionResult<N>> {
  const named = (Object.entries(writes) as [N, Write | readonly Write[] | undefined][]).flatMap(([name, value]) =>
    (value === undefined ? [] : Array.isArray(value) ? (value as readonly Write[]) : [value as Write]).map((write) => ({ name, write })),
  );
  try {
    await store.db.send(new TransactWriteCommand({ TransactItems: named.map(({ write }) => withTable(write, store.tableName)) }));
    return { committed: true };
  } catch (error) {
    // Read as refusals, a throttle's reasons once made a send the provider accepted look moved by someone else.
    if (errorName(error) !== 'TransactionCanceledException' || isThrottledTransaction(error)) throw error;
    const reasons = (error as { CancellationReasons?: { Code?: string }[] }).CancellationReasons ?? [];
    const refused: { [K in N]?: string } = {};
    named.forEach(({ name }, i) => {
      const code = reasons[i]?.Code;
      if (code && code !== 'None') refused[name] ??= code;
    });
    return { committed: false, refused };
  }
}

/**
 * `transactWrite`, tried again after `conflictPause` while DynamoDB refuses it only for a transaction
 * in flight on one of its items (up to CONFLICT_RETRIES times): for a request's write of an item
 * others write too (a workspace's endpoint count, a template a sync and a webhook both save).
 * Still refused so, a ServiceUnavailableError: 503 with `Retry-After`, as nothing was written and
 * the request may simply be made again (`untilNotOutrun`). Any other refusal comes back as `transactWrite`'s.
 */
export async function transactWriteThroughConflicts<N extends string>(store: Store, writes: NamedWrites<N>): Promise<TransactionResult<N>> {
  return untilNotOutrun(async () => {
    const result = await transactWrite(store, writes);
    return result.committed || !onlyConflicts(result.refused) ? result : undefined;
  });
}

/**
 * Calls `attempt` until it answers anything but undefined, which says it was outrun by another
 * write of the same item and wrote nothing (a transaction conflict, a condition on what it read).
 * Between tries, `conflictPause`: up to CONFLICT_RETRIES more within CONFLICT_WAIT_MS, or by the
 * deadline of the request it is part of (`conflictDeadline`), which leaves the function its answer;
 * then a ServiceUnavailableError, 503, as the request may simply be made again.
 */
export async function untilNotOutrun<T>(attempt: () => Promise<T | undefined>): Promise<T> {
  const deadline = conflictDeadline();
  // A wait inside an attempt (its transaction's) ends by this one's deadline too.
  return withinConflictDeadline(deadline, async () => {
    for (let retry = 0; ; retry++) {
      const answer = await attempt();
      if (answer !== undefined) return answer;
      if (retry >= CONFLICT_RETRIES || Date.now() >= deadline) throw new ServiceUnavailableError();
      await conflictPause(retry);
    }
  });
}

export interface UntilAnsweredOptions {
  /** Told of each try the table did not answer, before the next. */
  onUnanswered?: (error: unknown) => void;
  /**
   * Stop waiting at the deadline even for a try still in flight (the SDK's own tries of a hung call
   * take up to 12 s): it ends as a `TimeoutError`, and may still be applied later. Only for a write
   * whose later application anything that comes after recognises: a status move (conditional on the
   * status), the send's transaction (refused on its own dispatch). Not for a claim, which only the
   * call that made it recognises (decision 162).
   */
  abandonAtDeadline?: boolean;
}

/**
 * Calls `write` until the table answers. A write the table did not answer may have been applied
 * all the same, so it is tried again (pausing 100 ms, doubling to 1 s) until an answer comes or
 * `deadline` (epoch ms) would pass; then the error stands. Only for writes whose retry recognises
 * its own earlier success.
 */
export async function untilAnswered<T>(write: () => Promise<T>, deadline: number, options: UntilAnsweredOptions = {}): Promise<T> {
  for (let pause = 100; ; pause = Math.min(pause * 2, 1_000)) {
    try {
      return await (options.abandonAtDeadline ? answeredBy(write(), deadline) : write());
    } catch (error) {
      if (!isDependencyUnavailable(error) || Date.now() + pause > deadline) throw error;
      options.onUnanswered?.(error);
      await new Promise((resolve) => setTimeout(resolve, pause));
    }
  }
}

/** Sends one write on its own (outside a transaction). */
export async function writeOne(store: Store, write: Write): Promise<void> {
  if ('Put' in write) await store.db.send(new PutCommand({ ...write.Put, TableName: store.tableName }));
  else if ('Update' in write) await store.db.send(new UpdateCommand({ ...write.Update, TableName: store.tableName }));
  else if ('Delete' in write) await store.db.send(new DeleteCommand({ ...write.Delete, TableName: store.tableName }));
  else throw new Error('A ConditionCheck writes nothing on its own: send it in a transaction');
}

/** Sends one conditional write on its own: false when its condition refused it, which the caller takes as an answer. */
export async function writeIfAllowed(store: Store, write: Write): Promise<boolean> {
  try {
    await writeOne(store, write);
    return true;
  } catch (error) {
    if (isConditionFailed(error)) return false;
    throw error;
  }
}
