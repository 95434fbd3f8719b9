import { defaultQueue, defaultStore } from '../../shared/default-store';
import { dispatchQueueSettings } from '../../shared/dispatch-queue-settings';
import { logger } from '../../shared/logger';
import type { QueueTarget } from '../../shared/queue';
import type { Store } from '../../shared/store';
import { writeIfAllowed } from '../../shared/writes';
import { PENDING_SHARDS } from '../../shared/table';
import { enqueueDispatch } from '../messages/dispatch-queue';
import { isGivenBack, type Dispatch } from '../messages/dispatch';
import { indexedPendingDispatches, pendingDispatchPage, pendingEntryDrop, requeueChange, unansweredRetryChange } from '../messages/dispatch-repository';
import { STALE_ATTEMPT_MS } from './deliver-dispatch';
import { deadAttemptNotedAt, noteDeadAttempt } from './dead-attempt-note';
import { releaseClaim } from './delivery-attempt';
import { keepReconcilerPosition, reconcilerPosition } from './reconcile-position';
import { applyStatus, changeDispatch } from './dispatch-status';
import { EVIDENCE_GRAIN_MS, reportedThrough } from './report-evidence';
import { paceHeldUntil } from './number-pace';
import { mayBeHeld, PACING_HOLD_MS } from './template-pacing';
import { workspaceOfNumber } from '../workspaces/workspace-number';

/** A dispatch `queued` this long has likely lost its queue message (the gap between transaction and send). */
export const QUEUED_GRACE_MS = 2 * 60_000;
/**
 * A released attempt (the provider said "later") comes back with its queue message within its
 * back-off, and at the latest after the queue's visibility timeout (when shortening it failed).
 * Idle a minute past that, its message is gone: queue it again.
 */
export const RELEASED_GRACE_MS = (dispatchQueueSettings.visibilityTimeoutSeconds + 60) * 1000;
/**
 * A dead attempt (a consumer killed with its claim in flight) is released for another once the
 * provider has reported on what the number sent after it, and this long has passed without a report
 * for it: had the provider taken it, its `sent` report would have come (WhatsApp's come within
 * seconds). Released, it is queued again RELEASED_GRACE_MS later, unless its verdict or report
 * comes first (decision 161).
 */
export const REPORT_SILENCE_MS = 5 * 60_000;
/** Without that evidence (no reports flowing for the number), a dead attempt is due `unknown` after this. */
export const DEAD_ATTEMPT_UNKNOWN_MS = 15 * 60_000;
/**
 * A dead attempt due `unknown` is noted by the run that first finds it so, and settled by a run this
 * much later (decision 163): after a table outage longer than DEAD_ATTEMPT_UNKNOWN_MS, the
 * attempt's release carried on the queue (decision 161) lands in that time, as a carried verdict or
 * a retried report does for a released dead attempt.
 */
export const UNKNOWN_NOTICE_MS = RELEASED_GRACE_MS;
/**
 * The silence for a dead attempt of a template WhatsApp was holding (template pacing): its report
 * may come when the hold ends, within the hour at Meta's 99th percentile; twice that, then the
 * verdict (decision 148). Until then the dispatch stays `processing`.
 */
export const PACED_REPORT_SILENCE_MS = 2 * PACING_HOLD_MS;
/** Dispatches a run acts on per shard (each a write, a requeue a queue message too); what is left waits for the next run. */
const MAX_PER_SHARD = 200;
/**
 * Pending entries a run reads per shard, each a dispatch by BatchGet (half a read unit), a page of
 * `PENDING_PAGE` at a time: 8 000 a run, about 4 000 read units and a few seconds. `waiting`
 * dispatches (a campaign's backlog) are read past, not acted on; a shard holding more is read on
 * from where the run stopped by the next run (decision 210).
 */
export const READS_PER_SHARD = 2_000;
const PENDING_PAGE = 200;
/** CloudWatch's figure for the queue's oldest message is a minute's maximum, a minute or two late: what a dispatch's wait must pass it by. */
export const QUEUE_AGE_MARGIN_MS = 60_000;

export interface ReconcileSummary {
  requeued: number;
  /**
   * Dead attempts the provider's reports show it never took, their claims given back, and `unknown`
   * answers (a timeout, a gateway's 502 or 504) they show the same of, given back (decision 227):
   * each is queued again once idle RELEASED_GRACE_MS, unless its verdict or its report comes first.
   */
  released: number;
  /** Dead attempts due `unknown`, noted and left for a run UNKNOWN_NOTICE_MS after the note. */
  noted: number;
  /** Dead attempts settled `unknown`, and `unknown` answers no report can now judge, settled for good (decision 227). */
  settledUnknown: number;
  /** Settled dispatches whose pending entry a function from before decision 104 left behind. */
  droppedEntries: number;
  /**
   * Queued (or released) dispatches idle past their grace whose message may still be waiting in the
   * queue: the queue's oldest message has waited as long (decision 137), or their number's pace held
   * deliveries back since (decision 241); and dead attempts due
   * `unknown` whose release, carried on the queue since before their note, may be that message
   * (decision 163). Left for a later run.
   */
  waiting: number;
}

/**
 * Finds dispatches that stopped moving (docs/architecture.md#the-delivery-path): `queued` ones whose
 * queue message never went out, and released attempts whose message was lost, are queued again. A
 * dead attempt (`processing`, its claim older than a minute) is released, and so later queued
 * again, when the number's reports show the provider never took it (decisions 63, 161), and settled
 * `unknown` (never sent again) when nothing can show it, a notice after a first run noted it so
 * (decision 163); for a template WhatsApp was holding
 * (template pacing), both after two hours (decision 148). An `unknown` the provider's answer left
 * (a timeout, a gateway's 502 or 504), its attempt kept, is judged by the same evidence: given back,
 * and so queued again, or, with none by then, left `unknown` for good (decision 227). Reads only the sparse pending entries: a Query per shard (two while entries from before
 * decision 104 may remain), and a BatchGet of the dispatches they name; behind a backlog, a page
 * at a time up to `readsPerShard` (READS_PER_SHARD; tests lower it), the next run reading on from
 * where this one stopped (decision 210).
 *
 * `queueAgeMs`, how long the queue has held its oldest message, tells a lost message from one still
 * waiting behind a backlog (a campaign, a number's pace, a workspace the fair queue serves last): a
 * dispatch idle no longer than that (and a margin) may still have its message in the queue, and
 * is not queued twice (decision 137). Without it, every dispatch idle past its grace is queued again.
 * A number's pace puts what it holds back on the queue as new messages, which that age does not
 * show: a dispatch whose number's pace held deliveries back within its grace (or the queue's age)
 * is left too (decision 241).
 */
export async function reconcile(
  now: Date,
  store: Store = defaultStore(),
  queue: QueueTarget = defaultQueue(),
  options: { queueAgeMs?: number | undefined; readsPerShard?: number } = {},
): Promise<ReconcileSummary> {
  const summary: ReconcileSummary = { requeued: 0, released: 0, noted: 0, settledUnknown: 0, droppedEntries: 0, waiting: 0 };
  const mayStillBeQueued = (idleFor: number) => options.queueAgeMs !== undefined && idleFor <= options.queueAgeMs + QUEUE_AGE_MARGIN_MS;
  const cutoff = new Date(now.getTime() - QUEUED_GRACE_MS).toISOString();
  const evidence = reportEvidence(store);
  const readsPerShard = options.readsPerShard ?? READS_PER_SHARD;
  const holds = new Map<string, Promise<number | undefined>>();
  /**
   * Its number's pace may have put its message back on the queue since, as a new one the queue's
   * age does not show: idle from the pace's last hold no longer than its grace (or than the queue's
   * oldest message, and a margin), it is left (decision 241). Read once a workspace a run, and only
   * for what would otherwise be queued again.
   */
  async function heldByPace(dispatch: Dispatch, grace: number): Promise<boolean> {
    if (!holds.has(dispatch.workspaceId)) holds.set(dispatch.workspaceId, paceHeldUntil(dispatch.workspaceId, now, store));
    const heldUntil = await holds.get(dispatch.workspaceId)!;
    if (heldUntil === undefined) return false;
    const sinceHeld = now.getTime() - heldUntil;
    return sinceHeld <= grace || mayStillBeQueued(sinceHeld);
  }

  /** Does what the dispatch's state calls for; true when that took a write (the run's work is bounded by those). */
  async function judge(dispatch: Dispatch): Promise<boolean> {
    // An `unknown` given back to be sent again is queued as a released attempt is, by its own clock: its `updatedAt` is the GET body's (decision 227).
    const idleFor = now.getTime() - Date.parse(isGivenBack(dispatch) ? dispatch.givenBackAt : dispatch.updatedAt);
    // An `unknown` answer is judged by the number's reports as a dead attempt is, but it is recorded already: no note to wait on (decision 227).
    if (dispatch.status === 'unknown' && dispatch.attemptStartedAt) {
      const verdict = await deadAttemptVerdict(dispatch, dispatch.attemptStartedAt, now, evidence);
      if (verdict === 'release' && (await retryUnanswered(dispatch, dispatch.attemptStartedAt, now, store))) summary.released += 1;
      if (verdict === 'unknown' && (await dropPendingEntry(dispatch.dispatchId, store, dispatch.attemptStartedAt))) summary.settledUnknown += 1;
      return verdict === 'release' || verdict === 'unknown';
    }
    if (dispatch.status === 'processing' && dispatch.attemptStartedAt) {
      const verdict = await deadAttemptVerdict(dispatch, dispatch.attemptStartedAt, now, evidence);
      if (verdict === 'release' && (await releaseDeadAttempt(dispatch, now, store))) summary.released += 1;
      if (verdict === 'unknown') {
        const sinceNoted = now.getTime() - Date.parse(await noteDeadAttempt(dispatch.dispatchId, dispatch.attemptStartedAt, now, store));
        if (sinceNoted < UNKNOWN_NOTICE_MS) summary.noted += 1;
        // Its release, carried on the queue since before the note, may be waiting behind a backlog (decision 163).
        else if (mayStillBeQueued(sinceNoted)) summary.waiting += 1;
        // Of the attempt it judged: since its read, the claim may have been given back and taken again (decision 161).
        else if (await applyStatus(dispatch.dispatchId, { to: 'unknown', occurredAt: now.toISOString(), ofAttempt: dispatch.attemptStartedAt }, store, dispatch)) summary.settledUnknown += 1;
      }
      return verdict === 'release' || verdict === 'unknown';
    }
    if (dispatch.status === 'queued' || ((dispatch.status === 'processing' || isGivenBack(dispatch)) && idleFor > RELEASED_GRACE_MS)) {
      if (mayStillBeQueued(idleFor) || (await heldByPace(dispatch, dispatch.status === 'queued' ? QUEUED_GRACE_MS : RELEASED_GRACE_MS))) {
        summary.waiting += 1;
        return false;
      }
      if (await requeue(dispatch, now, store, queue)) summary.requeued += 1;
      return true;
    }
    if (dispatch.status === 'processing' || isGivenBack(dispatch)) return false;
    if (await dropPendingEntry(dispatch.dispatchId, store)) summary.droppedEntries += 1;
    return true;
  }

  for (let shard = 0; shard < PENDING_SHARDS; shard++) {
    let acted = 0;
    for (const dispatch of await indexedPendingDispatches(shard, cutoff, MAX_PER_SHARD, store)) if (await judge(dispatch)) acted += 1;
    // Oldest first, from where the last run stopped: entries it only waits on do not keep it from those behind them (decision 210).
    const from = await reconcilerPosition(shard, store);
    let position = from;
    let read = 0;
    pages: while (acted < MAX_PER_SHARD && read < readsPerShard) {
      const limit = Math.min(PENDING_PAGE, readsPerShard - read);
      const page = await pendingDispatchPage(shard, cutoff, limit, position, store);
      read += limit;
      for (const entry of page.entries) {
        if (acted >= MAX_PER_SHARD) break pages;
        if (await judge(entry.dispatch)) acted += 1;
        position = entry.position;
      }
      position = page.next;
      if (!position) break;
    }
    await keepReconcilerPosition(shard, from, position, store);
  }
  if (summary.requeued || summary.released || summary.noted || summary.settledUnknown || summary.droppedEntries || summary.waiting) logger.info('Reconciled stuck dispatches', { ...summary, queueAgeMs: options.queueAgeMs });
  return summary;
}

/**
 * What the provider's reports prove about dead attempts: a number's evidence read once per run, a
 * template's hold per dead attempt (rare). The number is the one the claim was taken on (decision
 * 181), never the workspace's today: reports on a number the workspace moved to say nothing of a
 * message sent from its former one. A claim that names none (taken before decisions 181 and 219 on
 * the stack's default number, or with no default number configured) has no evidence, and nor has one
 * on the default number while no workspace owns it, whose reports are not kept: it is settled
 * `unknown`, never sent again.
 */
interface ReportEvidence {
  /** How far the reports on the attempt's number have come; undefined without a number or a report. */
  reportedThrough(dispatch: Dispatch): Promise<string | undefined>;
  /** Whether WhatsApp may be holding the attempt's message (template pacing): its report may be an hour late. */
  mayBeHeld(dispatch: Dispatch, attemptStartedAt: string): Promise<boolean>;
}

function reportEvidence(store: Store): ReportEvidence {
  const byNumber = new Map<string, Promise<string | undefined>>();
  return {
    async reportedThrough({ senderPhoneNumberId: number }) {
      if (!number) return undefined;
      if (!byNumber.has(number)) byNumber.set(number, reportedThrough(number, store));
      return byNumber.get(number);
    },
    async mayBeHeld({ senderPhoneNumberId: number, templateId }, attemptStartedAt) {
      return number ? mayBeHeld(number, templateId, attemptStartedAt, store) : false;
    },
  };
}

/**
 * A dead attempt's clock: until `judgedAt` a report for it may still come; from then it is sent
 * again once the number's reports reach `evidenceNeeded`, and due `unknown` at `unknownAt`
 * without them. Two hours rather than five minutes for a template WhatsApp was holding (decision 148).
 */
async function deadAttemptClock(dispatch: Dispatch, attemptStartedAt: string, evidence: ReportEvidence) {
  const started = Date.parse(attemptStartedAt);
  const paced = await evidence.mayBeHeld(dispatch, attemptStartedAt);
  const silence = paced ? PACED_REPORT_SILENCE_MS : REPORT_SILENCE_MS;
  return { paced, judgedAt: started + silence, evidenceNeeded: started - EVIDENCE_GRAIN_MS, unknownAt: started + Math.max(DEAD_ATTEMPT_UNKNOWN_MS, silence) };
}

async function deadAttemptVerdict(dispatch: Dispatch, attemptStartedAt: string, now: Date, evidence: ReportEvidence) {
  const attemptAge = now.getTime() - Date.parse(attemptStartedAt);
  if (attemptAge <= STALE_ATTEMPT_MS) return 'alive';
  // The clock reads the template's hold: only for the rare dead attempt that has waited out the usual silence.
  if (attemptAge < REPORT_SILENCE_MS) return 'wait';
  const clock = await deadAttemptClock(dispatch, attemptStartedAt, evidence);
  if (now.getTime() < clock.judgedAt) return 'wait';
  const reportedThrough = await evidence.reportedThrough(dispatch);
  if (reportedThrough && Date.parse(reportedThrough) >= clock.evidenceNeeded) return 'release';
  return now.getTime() >= clock.unknownAt ? 'unknown' : 'wait';
}

/**
 * What the reconciler does with a dispatch, and from when, for an operator asking why one waits
 * (`npm run admin -- dispatch show`): by the rules `reconcile` applies, read without changing anything.
 * `requeue`: queued, or a released attempt (or an `unknown` given back, decision 227), queued again once idle past its grace (unless the
 * queue's oldest message has waited as long); `attempt`: a provider call may be under way; `dead`:
 * its consumer died with the claim, and it is judged at `judgedAt` (released if the number's
 * reports have passed `evidenceNeeded`) or settled `unknown` from `unknownAt`: a notice after the
 * run that noted it so, or after the earliest such run (unless the queue's backlog may hold its
 * carried release: decision 163).
 */
export type ReconcilerView =
  | { kind: 'settled' }
  | { kind: 'requeue'; after: string }
  | { kind: 'attempt'; deadAfter: string }
  | { kind: 'dead'; paced: boolean; judgedAt: string; evidenceNeeded: string | null; reportedThrough: string | null; unknownAt: string }
  /** An `unknown` answer judged as a dead attempt is (decision 227): sent again, or at `settledAt` left `unknown` for good; a report settles it first. */
  | { kind: 'unanswered'; paced: boolean; judgedAt: string; evidenceNeeded: string | null; reportedThrough: string | null; settledAt: string };

export async function reconcilerView(dispatch: Dispatch, now: Date, store: Store = defaultStore()): Promise<ReconcilerView> {
  const iso = (ms: number) => new Date(ms).toISOString();
  if (dispatch.status === 'queued') return { kind: 'requeue', after: iso(Date.parse(dispatch.updatedAt) + QUEUED_GRACE_MS) };
  if (dispatch.status === 'unknown' && dispatch.attemptStartedAt) {
    const evidence = reportEvidence(store);
    const { paced, judgedAt, evidenceNeeded, unknownAt } = await deadAttemptClock(dispatch, dispatch.attemptStartedAt, evidence);
    const reportedThrough = (await evidence.reportedThrough(dispatch)) ?? null;
    return { kind: 'unanswered', paced, judgedAt: iso(judgedAt), evidenceNeeded: (await judgedByReports(dispatch, reportedThrough, store)) ? iso(evidenceNeeded) : null, reportedThrough, settledAt: iso(unknownAt) };
  }
  if (isGivenBack(dispatch)) return { kind: 'requeue', after: iso(Date.parse(dispatch.givenBackAt) + RELEASED_GRACE_MS) };
  if (dispatch.status !== 'processing') return { kind: 'settled' };
  const started = dispatch.attemptStartedAt;
  if (!started) return { kind: 'requeue', after: iso(Date.parse(dispatch.updatedAt) + RELEASED_GRACE_MS) };
  if (now.getTime() - Date.parse(started) <= STALE_ATTEMPT_MS) return { kind: 'attempt', deadAfter: iso(Date.parse(started) + STALE_ATTEMPT_MS) };
  const evidence = reportEvidence(store);
  const { paced, judgedAt, evidenceNeeded, unknownAt } = await deadAttemptClock(dispatch, started, evidence);
  const reportedThrough = (await evidence.reportedThrough(dispatch)) ?? null;
  // Noted by a run at or after `unknownAt` (the next, if that has passed), settled by the first run a notice after the note and not before `unknownAt`.
  const notedAt = await deadAttemptNotedAt(dispatch.dispatchId, started, store);
  const settledFrom = Math.max(unknownAt, (notedAt ? Date.parse(notedAt) : Math.max(unknownAt, now.getTime())) + UNKNOWN_NOTICE_MS);
  return { kind: 'dead', paced, judgedAt: iso(judgedAt), evidenceNeeded: (await judgedByReports(dispatch, reportedThrough, store)) ? iso(evidenceNeeded) : null, reportedThrough, unknownAt: iso(settledFrom) };
}

/** A claim on no number whose reports are kept (none named, or the default one no workspace owns) has no reports to prove it never reached the provider: never released. */
const judgedByReports = async (dispatch: Dispatch, reportedThrough: string | null, store: Store): Promise<boolean> =>
  dispatch.senderPhoneNumberId !== undefined && (reportedThrough !== null || (await workspaceOfNumber(dispatch.senderPhoneNumberId, store)) !== undefined);

/**
 * Gives the dead claim back; the dispatch is queued again once idle RELEASED_GRACE_MS, as any
 * released attempt. Not at once: the reports that prove it can arrive the moment a table outage
 * ends, before the attempt's verdict, carried on the queue meanwhile, is written, and before
 * WhatsApp's retried report of it (decision 161). Either, in that time, settles it.
 */
async function releaseDeadAttempt(dispatch: Dispatch, now: Date, store: Store): Promise<boolean> {
  const released = await releaseClaim(dispatch, now, store);
  if (released) logger.warn('Dead attempt never reached the provider; released, and queued again if nothing settles it first', { dispatchId: dispatch.dispatchId, attemptStartedAt: dispatch.attemptStartedAt, queuedAfter: new Date(now.getTime() + RELEASED_GRACE_MS).toISOString() });
  return released;
}

/**
 * Gives back the attempt of an `unknown` answer WhatsApp never took, its answer counted (decisions
 * 132, 227); queued again once idle RELEASED_GRACE_MS, as a released dead attempt is, unless a
 * report for it comes first.
 */
async function retryUnanswered(dispatch: Dispatch, attemptStartedAt: string, now: Date, store: Store): Promise<boolean> {
  const given = await changeDispatch(dispatch.dispatchId, store, dispatch, (current) =>
    current.status === 'unknown' && current.attemptStartedAt === attemptStartedAt ? unansweredRetryChange({ ...current, attemptStartedAt }, now) : undefined,
  );
  if (given) logger.warn('WhatsApp never took a message whose answer was unknown; given back, and queued again if nothing settles it first', { dispatchId: dispatch.dispatchId, attemptStartedAt, queuedAfter: new Date(now.getTime() + RELEASED_GRACE_MS).toISOString() });
  return given !== undefined;
}

/** False when the entry had already moved on: the index is read a moment behind the table. `ofAttempt`: only while the dispatch holds that attempt. */
const dropPendingEntry = (dispatchId: string, store: Store, ofAttempt?: string): Promise<boolean> => writeIfAllowed(store, pendingEntryDrop(dispatchId, ofAttempt));

/** Moves the dispatch's pending entry forward first, so the next run does not queue it again. */
async function requeue(dispatch: Dispatch, now: Date, store: Store, queue: QueueTarget): Promise<boolean> {
  const { dispatchId, workspaceId, status } = dispatch;
  const moved = await changeDispatch(dispatchId, store, dispatch, (current) => (current.status === status && (status !== 'unknown' || isGivenBack(current)) ? requeueChange(current, now) : undefined));
  if (!moved) return false;
  await enqueueDispatch({ dispatchId, workspaceId }, queue);
  return true;
}
