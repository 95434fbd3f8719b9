import { defaultStore } from '../../shared/default-store';
import { ServiceUnavailableError } from '../../shared/errors';
import { logger } from '../../shared/logger';
import { isSenderRefusal } from '../../shared/metric-names';
import { messageMetrics } from '../../shared/metrics';
import type { Store } from '../../shared/store';
import { conflictDeadline, conflictPause, CONFLICT_RETRIES, isConditionFailed, isTransactionConflict, writeOne, type Write } from '../../shared/writes';
import type { Dispatch, DispatchStatus, MovableEvent } from '../messages/dispatch';
import { eventTimeCorrection, getDispatchById, pricingChange, readReceipt, statusMove, type DispatchChange, type StatusMove } from '../messages/dispatch-repository';
import type { Pricing } from '../providers/whatsapp-webhook';
import { canMove, isFirstReport, mayStillMove, overtakenByReport, staysUnknown } from './transitions';

const ATTEMPTS = 3;

/**
 * Moves a dispatch to `change.to` if docs/api.md#dispatch-statuses allows it from its current
 * status, once: a redelivered message or a repeated callback finds the move made and changes
 * nothing. What follows from the move is named on the dispatch and written from the write's
 * stream record: its delivery events (decision 112), the wamid's item when a status first tells
 * the wamid (decision 114; the deliver consumer puts its own, decision 196) and, the first time it
 * counts as sent or when it stops counting, its
 * tag links and report rollups (decision 113). Returns false when the move is not allowed: a
 * duplicate, late or out-of-order report.
 */
export async function applyStatus(dispatchId: string, change: StatusMove, store: Store = defaultStore(), known?: Dispatch): Promise<boolean> {
  // No fresh read could allow a move that nothing the known status can come to allows: a `read`
  // after its `delivered` (decision 110), Meta's `sent` on a dispatch our own answer moved (decision 121).
  if (known && !mayStillMove(known.status, change.to) && !staysUnknown(known.status, change)) return false;
  const now = new Date();
  let decidedOn: Dispatch | undefined;
  const moved = await changeDispatch(dispatchId, store, known, (current) => {
    decidedOn = current;
    // An `unknown`'s retry answered `unknown` again stays so, while it holds the retry's attempt (decision 227).
    if (staysUnknown(current.status, change) ? !current.attemptStartedAt : !canMove(current.status, change)) return undefined;
    if (!holdsAttempt(current, change)) return undefined;
    return transitionWrites(current, change, now.toISOString());
  });
  if (moved) recordTransition(moved.before, change);
  else if (decidedOn && overtakenByReport(decidedOn.status, change)) {
    // WhatsApp took an earlier send after all (decision 227's residual risk): the customer has that one, and this attempt's verdict is lost.
    logger.warn('Skipped a verdict: a report moved the dispatch on while its attempt was in flight', { dispatchId, verdict: change.to, failureCode: change.failureCode, ofClaim: change.ofClaim, status: decidedOn.status });
  }
  return moved !== undefined;
}

/** Whether the dispatch still holds the attempt a move settles (`ofAttempt`, `ofClaim`), as the move's write requires. */
export const holdsAttempt = (dispatch: Dispatch, change: Pick<StatusMove, 'ofAttempt' | 'ofClaim'>): boolean =>
  (!change.ofAttempt || dispatch.attemptStartedAt === change.ofAttempt) && (change.ofClaim === undefined || dispatch.attempts === change.ofClaim);

/** WhatsApp's `read`: `readAt` on a delivered dispatch, once. False when it does not apply (not delivered, read already). */
export async function applyReadReceipt(dispatchId: string, readAt: string, store: Store = defaultStore(), known?: Dispatch): Promise<boolean> {
  const changed = await changeDispatch(dispatchId, store, known, (current) =>
    // Never read before it was delivered, however the provider's whole seconds fall.
    current.status === 'delivered' && current.readAt === null ? readReceipt(current, current.deliveredAt && readAt < current.deliveredAt ? current.deliveredAt : readAt, new Date().toISOString()) : undefined,
  );
  return changed !== undefined;
}

/** The reports that may come after a later one that moved the dispatch, and the event of the time each tells. */
const eventOfReport = { sent: 'ACCEPTED', delivered: 'DELIVERED' } as const satisfies Record<string, MovableEvent>;
export type CrossedReport = keyof typeof eventOfReport;

/**
 * WhatsApp's `delivered` or `sent` on a dispatch already delivered at a later time: a later report
 * came first and moved it at its own time, and this one says when it happened. A `delivered` after
 * the `read` sets `deliveredAt` back, never before the dispatch was sent (decision 200); a `sent`
 * after the `delivered` or `read` that counted the dispatch as sent (`sentAtFromDelivery`) sets
 * `sentAt` back, once, never before the dispatch was made (decision 236). False when it does not
 * apply (not so delivered, or no earlier).
 */
export async function applyReportedTime(dispatchId: string, report: CrossedReport, reportedAt: string, store: Store = defaultStore(), known?: Dispatch): Promise<boolean> {
  if (known && !mayRedate(known, report, reportedAt)) return false;
  const event = eventOfReport[report];
  const changed = await changeDispatch(dispatchId, store, known, (current) => {
    const kept = timeKept(current, report);
    if (!kept) return undefined;
    const at = notBefore(current, report, reportedAt);
    return at < kept ? eventTimeCorrection(current, event, kept, at, new Date().toISOString()) : undefined;
  });
  return changed !== undefined;
}

/**
 * The time a crossed `report` may move back: a delivered dispatch's `deliveredAt`, or the `sentAt`
 * its delivery set. Not a `sentAt` equal to `deliveredAt` alone: a `delivered` in the second of our
 * own answer's `sentAt` is kept at it (`notBefore`), and that `sentAt` stays (decision 236).
 */
function timeKept(dispatch: Dispatch, report: CrossedReport): string | undefined {
  if (dispatch.status !== 'delivered' || !dispatch.deliveredAt) return undefined;
  if (report === 'delivered') return dispatch.deliveredAt;
  return (dispatch.sentAtFromDelivery && dispatch.sentAt) || undefined;
}

/**
 * Whether a fresh read of a dispatch read as `known` could let a crossed report move it. A repeated
 * report (Meta's retry of a POST) finds nothing to do; nor does a `sent` on a dispatch that was sent
 * before it was delivered (Meta's `sent` after our own answer's move, most messages', decision
 * 121): its `sentAt` is a sent move's, and stays.
 */
function mayRedate(known: Dispatch, report: CrossedReport, reportedAt: string): boolean {
  if (known.status === 'delivered') {
    const kept = timeKept(known, report);
    return kept !== undefined && reportedAt < kept;
  }
  return !(report === 'sent' && known.sentAt) && mayStillMove(known.status, 'delivered');
}

/** Meta's pricing of the message, as a status of `pricedAt` gave it, when it differs from the one kept and is no older. */
export async function applyPricing(dispatchId: string, pricing: Pricing, pricedAt: string, store: Store = defaultStore(), known?: Dispatch): Promise<boolean> {
  const changed = await changeDispatch(dispatchId, store, known, (current) => pricingChange(current, pricing, pricedAt, new Date().toISOString()));
  return changed !== undefined;
}

/**
 * Applies one change of the GET body of a dispatch (docs/api.md#message-status); the stream
 * record of its write is the change's `message.status.updated` event (decision 89). `build`
 * decides on the dispatch as known or read: undefined when the change does not apply, and a
 * dispatch the caller knew may be stale, so that answer stands only on a fresh read. A refusal
 * means someone changed the dispatch first: it is read again and `build` decides again.
 */
export async function changeDispatch(
  dispatchId: string,
  store: Store,
  known: Dispatch | undefined,
  build: (current: Dispatch) => DispatchChange | undefined,
): Promise<{ before: Dispatch; after: Dispatch } | undefined> {
  let current = known;
  for (let attempt = 1; attempt <= ATTEMPTS; attempt++) {
    const fresh = !current;
    current ??= await getDispatchById(dispatchId, store, true);
    if (!current) return undefined;
    const change = build(current);
    if (!change && fresh) return undefined;
    if (change && (await commitThroughConflicts(dispatchId, store, change.write))) return { before: current, after: change.after };
    // Someone moved it first, or what we knew was old: read it again and decide again.
    current = undefined;
  }
  return undefined;
}

/**
 * Commits one change: true once committed, false when its condition refused it (the dispatch moved
 * first). A transaction holding the dispatch (its send's, or a release's) is waited out; a change
 * still refused for one after that throws, so the caller's message or callback is retried rather
 * than the change taken as not applying (a send the provider accepted was left `processing` that
 * way). Any other error throws too: only a failed condition is an answer to decide on.
 */
async function commitThroughConflicts(dispatchId: string, store: Store, write: Write): Promise<boolean> {
  const deadline = conflictDeadline();
  for (let retry = 0; ; retry++) {
    try {
      await writeOne(store, write);
      return true;
    } catch (error) {
      if (isConditionFailed(error)) return false;
      if (!isTransactionConflict(error)) throw error;
    }
    // 503 with Retry-After on a request (Meta retries the POST); a consumer's record fails and comes back.
    if (retry >= CONFLICT_RETRIES || Date.now() >= deadline) throw new ServiceUnavailableError({ cause: new Error(`Change of dispatch ${dispatchId} kept conflicting with other transactions`) });
    await conflictPause(retry);
  }
}

/**
 * What one move writes: the dispatch alone, naming what follows from it for the table's stream
 * readers (decisions 112–114): its delivery events, its reports change, and, for a status that
 * first tells the wamid (it echoed the dispatch id when the provider's answer was lost), the
 * wamid's item, by which a later status without the echo, or a reaction, finds the dispatch (the
 * deliver consumer puts the item of the wamid it was answered with, decision 196). The conversation is not written: a message's status is read live from its
 * dispatch, and the conversation's own fields do not change with it (decision 99).
 */
function transitionWrites(dispatch: Dispatch, requested: StatusMove, now: string): DispatchChange {
  // Only the times kept of the move are moved up: its pricing is ordered by Meta's own times (decision 202).
  return statusMove(dispatch, requested, notBefore(dispatch, requested.to, requested.occurredAt), now);
}

/**
 * The time a move to `to` keeps for a report of `at`. Provider timestamps are whole seconds: a
 * report may predate our own record of the dispatch, or of its send, by a fraction of one. A
 * message is never sent before it was accepted, nor delivered or failed (a late failure, REJECTED
 * after ACCEPTED) before it was sent.
 */
function notBefore(dispatch: Dispatch, to: DispatchStatus, at: string): string {
  const earliest = ((to === 'delivered' || to === 'failed') && dispatch.sentAt) || dispatch.createdAt;
  return at < earliest ? earliest : at;
}

/** Metrics of a move that committed; a dispatch counts as sent once, however it got there. */
function recordTransition(dispatch: Dispatch, change: StatusMove): void {
  if (isFirstReport(dispatch, change.to)) messageMetrics.sent();
  if (change.to === 'delivered') messageMetrics.delivered();
  if (change.to !== 'failed') return;
  const failureCode = change.failureCode ?? 'failed';
  messageMetrics.failed(failureCode);
  // Its metric pages; this line names the workspace whose owner must act (decision 153).
  if (isSenderRefusal(failureCode)) {
    logger.warn('WhatsApp refused the sender; its sends fail until it is fixed', { workspaceId: dispatch.workspaceId, dispatchId: dispatch.dispatchId, failureCode });
  }
}
