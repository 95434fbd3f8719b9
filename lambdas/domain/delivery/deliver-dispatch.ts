import { config } from '../../shared/config';
import { dispatchQueueSettings } from '../../shared/dispatch-queue-settings';
import { logger } from '../../shared/logger';
import { messageMetrics } from '../../shared/metrics';
import type { Store } from '../../shared/store';
import type { Dispatch } from '../messages/dispatch';
import { enqueueDispatch, type CarriedRelease, type CarriedVerdict, type DispatchMessage } from '../messages/dispatch-queue';
import { getDispatchById } from '../messages/dispatch-repository';
import { defaultQueue, defaultStore } from '../../shared/default-store';
import type { QueueTarget } from '../../shared/queue';
import { ProviderError, type Provider, type ProviderAcceptance, type ProviderMessage, type ProviderReadiness } from '../providers/provider';
import { lookUpWorkspace } from '../workspaces/workspace-lookup';
import { getMarketingOptOut } from '../workspaces/marketing-opt-out';
import { sendingNumberOf } from '../workspaces/workspace-number';
import type { WorkspaceSettings } from '../workspaces/workspace';
import { isDependencyUnavailable } from '../../shared/dependency-errors';
import { answeredBy } from '../../shared/answered-by';
import { untilAnswered } from '../../shared/writes';
import { claimDispatch, releaseAttempt, UnansweredClaim, type ClaimResult, type ProviderSaidLater } from './delivery-attempt';
import { applyStatus, holdsAttempt } from './dispatch-status';
import { putDispatchWamid } from './provider-message';
import { noteHeldSend } from './template-pacing';

/**
 * An attempt older than this without a verdict belongs to a consumer that died with its claim in
 * flight (a provider call ends within PROVIDER_TIMEOUT_MS, the function within 30 s): the
 * reconciler judges it (lambdas/domain/delivery/reconcile.ts).
 */
export const STALE_ATTEMPT_MS = 60_000;

/** How long the verdict's write keeps asking a table that does not answer, when the attempt sets no deadline. */
export const VERDICT_WRITE_DEADLINE_MS = 10_000;

/**
 * What a claim leaves of the attempt's deadline for the verdict's write, past the provider's whole
 * timeout: a try the table does not connect for (1 s, decision 162) and the carry on the queue
 * (1.5 s at most, decision 160), so that a call that takes all its time is still written or
 * carried before the function ends (decision 225).
 */
export const VERDICT_WRITE_TIME_MS = 3_000;

/** How long each round of an unanswered claim's release asks the table before it tries the queue (decision 225). */
const RELEASE_ROUND_MS = 2_000;

/**
 * `carried`: the table did not take the provider's verdict (or the release of the claim) before the
 * attempt's deadline; it is on the queue in a message of its own, which a later receive writes
 * (decision 161).
 * `requeued`: a carried release was written, and the dispatch queued again for its delivery, after
 * the back-off the provider's answer earned (decision 164).
 * `held`: the message's last receive ended with the provider refusing our credentials, or asking
 * for "later" with its retry budget left; the attempt is released and its queue message let go, so
 * it never reaches the DLQ, and the reconciler queues it again after RELEASED_GRACE_MS (for as
 * long as the token stays refused; until the provider's answers spend the budget).
 */
export type DeliveryOutcome = 'sent' | 'failed' | 'unknown' | 'retry' | 'held' | 'carried' | 'requeued' | 'skipped';

export interface DeliveryAttempt {
  dispatchId: string;
  /** From the queue message: lets everything but the provider call happen before the claim. */
  workspaceId: string;
  /** How often the queue has handed this message out, this time included. */
  receiveCount: number;
  /** After this many receives the message goes to the DLQ: the last chance to settle it. */
  maxReceives: number;
  /**
   * When the function must be done with the record (epoch ms): its invocation's end, less its batch
   * answer. A claim is taken, and its tries made, only while the provider call and its verdict's
   * write still fit before it (decision 225); the verdict's write asks a table that does not answer
   * until it. Absent (a context without a clock): the claim is not held to it.
   */
  deadline?: number;
  /**
   * Until when (epoch ms) the verdict's write may keep asking a table that does not answer, when it
   * is not the `deadline`. Absent: the `deadline`, or VERDICT_WRITE_DEADLINE_MS from the verdict.
   */
  writeDeadline?: number;
  /** The provider's verdict on an earlier attempt, carried by the message: written, nothing sent (decision 161). */
  verdict?: CarriedVerdict;
  /** An earlier attempt's release, carried by the message: written, then the dispatch queued again (decisions 161, 164). */
  release?: CarriedRelease;
}

/** The message's last receive: what is not settled now goes to the DLQ, unless let go. */
const isLastReceive = (attempt: DeliveryAttempt) => attempt.receiveCount >= attempt.maxReceives;

export interface DeliveryDependencies {
  providerFor: (settings: Pick<WorkspaceSettings, 'provider'>) => Provider;
  store?: Store;
  /** Where a verdict the table did not take goes (the dispatch queue). */
  queue?: QueueTarget;
  now?: () => Date;
}

/**
 * Delivers one queued dispatch at most once (issue 4): claim it, call the workspace's provider,
 * and record the verdict. A redelivered message, a second consumer or a retry after a crash
 * finds the claim taken and never calls the provider again.
 *
 * A claim is taken only when nothing but the provider request is left to do: the workspace and
 * the provider's credentials are loaded first. A consumer that dies before it claims leaves the
 * dispatch `queued` for its message's return; one that dies between claim and call leaves it
 * `unknown` for good (the provider never reports what it never had), so that gap is kept to the
 * request itself (issue 15: the chaos run's consumer kills).
 */
export async function deliverDispatch(attempt: DeliveryAttempt, deps: DeliveryDependencies): Promise<DeliveryOutcome> {
  return (await deliver(attempt, deps)).outcome;
}

async function deliver(attempt: DeliveryAttempt, deps: DeliveryDependencies): Promise<MessageVerdict> {
  if (attempt.verdict) return recordCarriedVerdict(attempt, attempt.verdict, deps);
  const now = deps.now ?? (() => new Date());
  if (attempt.release) return recordCarriedRelease(attempt, attempt.release, now(), deps);
  let sender = await readySender(attempt.workspaceId, deps, now());
  // Not ready is never the provider's answer: the dispatch stays `queued`, unclaimed, and its
  // message comes back as for any fault of ours, to the DLQ after its last receive (decision 205).
  // Only a token to replace is held on the last receive, as WhatsApp's refusal of one is.
  if (sender instanceof ProviderError && sender.kind !== 'credentials') return failedOnOurSide(attempt, sender);
  if (sender instanceof ProviderError && !isLastReceive(attempt)) {
    logger.warn('Provider not ready; dispatch left queued for its retry', { dispatchId: attempt.dispatchId, kind: sender.kind, code: sender.code });
    return retryAfterReceive(attempt);
  }

  // A claim the function has no time to call for would be decision 62's consumer killed with its
  // request on the wire: nothing is claimed, and the message comes back as for a fault of ours.
  const lastClaimAt = sender instanceof ProviderError ? Infinity : lastClaimOf(attempt);
  if (Date.now() > lastClaimAt) return failedOnOurSide(attempt, noTimeToSend());
  const claim = await claimOrRelease(attempt, now, deps, sender instanceof ProviderError ? undefined : sender.sendsFrom, lastClaimAt);
  if (!claim.claimed) return { outcome: settleUnclaimable(claim.current) };
  const dispatch = claim.dispatch;
  // The queue message is ours, so this never differs; if it did, the dispatch's own workspace decides.
  if (dispatch.workspaceId !== attempt.workspaceId) {
    logger.error('Queue message named another workspace than its dispatch', { dispatchId: dispatch.dispatchId });
    sender = await readySender(dispatch.workspaceId, deps, now());
  }
  // A token still unusable on the message's last receive (or the dispatch's own workspace not ready): as the provider's answer would be.
  if (sender instanceof ProviderError) return recordVerdict(dispatch, sender, attempt, now(), deps);
  const optedOut = dispatch.marketing ? await marketingRefusal(dispatch, deps.store) : undefined;
  if (optedOut) return recordVerdict(dispatch, optedOut, attempt, now(), deps);
  if (Date.now() > lastClaimAt) return giveBackUncalled(dispatch, claim.attemptId, attempt, now(), deps);
  let acceptance: ProviderAcceptance;
  try {
    acceptance = await callProvider(sender.provider, {
      dispatchId: dispatch.dispatchId,
      to: dispatch.to,
      templateName: dispatch.providerTemplateName,
      language: dispatch.language,
      bodyParameters: dispatch.bodyParameters,
      ...dispatch.templateParameters,
      ...(sender.phoneNumberId ? { phoneNumberId: sender.phoneNumberId } : {}),
      laterAnswers: dispatch.laterAnswers ?? 0,
    });
  } catch (error) {
    const verdict = error instanceof ProviderError ? error : new ProviderError('unknown', 'provider_fault', (error as Error).message, { cause: error });
    logger.info('Provider did not accept', { dispatchId: dispatch.dispatchId, kind: verdict.kind, code: verdict.code, providerMessage: verdict.message, ...verdict.detail });
    return recordVerdict(dispatch, verdict, attempt, now(), deps);
  }
  // The provider has it. A write that fails here for another reason than a table away is not the
  // provider's verdict: it throws, the claim keeps a second call out, and the provider's own reports
  // (which echo the dispatch id) record the send. A held message's pacing mark goes first: should
  // the `sent` write fail, the claim it leaves must wait for WhatsApp's hold, not be judged by the
  // number's other reports.
  const sentAt = now().toISOString();
  if (acceptance.held) await noteHeld(sender.sendsFrom, dispatch, sentAt, attempt, deps.store);
  const sent: CarriedVerdict = { to: 'sent', occurredAt: sentAt, providerMessageId: acceptance.providerMessageId, ...(acceptance.phoneNumberId ? { senderPhoneNumberId: acceptance.phoneNumberId } : {}) };
  return settledAs(await writeVerdict(attempt, sent, deps, dispatch), 'sent');
}

/**
 * Writes the provider's verdict on the attempt, through a table that does not answer for a moment
 * (decision 133). A table still away at the attempt's deadline does not lose it: the verdict goes
 * on the queue in a message of its own, and a later receive writes it (decision 161). Lost, it
 * would leave the claim standing, and once the table is back the number's new reports, arriving
 * before WhatsApp's retry of this message's own, would read as proof that WhatsApp never had it
 * (decision 63). The verdict names the claim it settles, written or carried (decision 211). Returns
 * whether the move was made (false: it did not apply), or `carried`.
 */
function writeVerdict(attempt: DeliveryAttempt, verdict: CarriedVerdict, deps: DeliveryDependencies, claimed: Dispatch): Promise<boolean | 'carried'> {
  const named: CarriedVerdict = { ...verdict, ofClaim: claimed.attempts };
  return writtenOrCarried(attempt, { verdict: named }, verdict.to, deps, claimed, () => applyVerdict(attempt, named, deps, claimed));
}

/**
 * The verdict's move. A wamid the provider answered with has its item put first (decision 196), so
 * a status that does not echo the dispatch id finds its dispatch from the moment the dispatch shows
 * it sent; put from the move's stream record, it named nothing for a second, and a `failed` in that
 * second was skipped for good (Meta does not send a status again once it was answered 200).
 */
async function applyVerdict(attempt: DeliveryAttempt, verdict: CarriedVerdict, deps: DeliveryDependencies, known?: Dispatch): Promise<boolean> {
  if (!verdict.providerMessageId) return applyStatus(attempt.dispatchId, verdict, deps.store, known);
  const store = deps.store ?? defaultStore();
  await putDispatchWamid(verdict.providerMessageId, { workspaceId: known?.workspaceId ?? attempt.workspaceId, dispatchId: attempt.dispatchId }, store);
  return applyStatus(attempt.dispatchId, { ...verdict, wamidItemPut: true }, store, known);
}

/**
 * Gives the attempt's claim back (the provider said "later", or refused our token), or carries the
 * release on the queue as `writeVerdict` carries a verdict: lost, it would leave a claim that only
 * the number's later reports could clear, and a refused token sends nothing to report on, so the
 * message, never sent, would end `unknown`. A receive of the carried release writes it, then
 * delivers the dispatch (decision 161).
 */
function writeRelease(attempt: DeliveryAttempt, release: CarriedRelease, now: Date, deps: DeliveryDependencies, known?: Dispatch): Promise<boolean | 'carried'> {
  return writtenOrCarried(attempt, { release }, 'release', deps, known, () => releaseAttempt(attempt.dispatchId, release, now, deps.store, release.outage ? 'outage' : release.providerSaidLater, known));
}

/**
 * Claims the dispatch. A claim the table answered none of whose tries by its deadline may stand
 * under an id only this attempt knows: every later receive would be refused it and skip the
 * message, and the reconciler, with no reports of a message WhatsApp never had, would settle it
 * `unknown`. The provider was certainly not asked, so the claim is given back, by its id, written or
 * carried like any release; the message still comes back with the table's error, and the DLQ
 * still takes it after its last receive (decisions 205, 218). Neither written nor carried, the id
 * would die with the invocation, so the release asks the table and the queue in turn until the
 * attempt's deadline: either back within the function's time takes it (decision 225).
 */
async function claimOrRelease(attempt: DeliveryAttempt, now: () => Date, deps: DeliveryDependencies, sendsFrom: string | undefined, lastClaimAt: number): Promise<ClaimResult> {
  try {
    return await claimDispatch(attempt.dispatchId, now(), deps.store, sendsFrom, lastClaimAt);
  } catch (error) {
    if (!(error instanceof UnansweredClaim)) throw error;
    const release: CarriedRelease = { ...error.claim, providerSaidLater: false };
    const deadline = writeDeadlineOf(attempt);
    // A round starts only with a round's time left: its queue call must end before the function does.
    await untilAnswered(() => writeRelease({ ...attempt, writeDeadline: Math.min(deadline, Date.now() + RELEASE_ROUND_MS) }, release, now(), deps), deadline - RELEASE_ROUND_MS);
    throw error.cause;
  }
}

/**
 * The last moment a claim may be taken, or answered, for a provider call: the attempt's deadline
 * less the provider's whole timeout and the verdict's write (decision 225). Without a deadline, none.
 */
const lastClaimOf = (attempt: DeliveryAttempt) => (attempt.deadline === undefined ? Infinity : attempt.deadline - config.PROVIDER_TIMEOUT_MS - VERDICT_WRITE_TIME_MS);

/** Too little of the function's time was left for the provider call: a fault of ours before WhatsApp was asked (decision 205). */
const noTimeToSend = () => new ProviderError('transient', 'no_time_to_send', 'Too little of the function’s time was left for the provider call and its verdict’s write', { reached: false });

/**
 * A claim answered too late for the provider call to fit in the function's time (a slow claim, a
 * slow opt-out read): WhatsApp is not asked, and the claim is given back by its id, written or
 * carried like any release (decision 218), uncounted; the message comes back as for a fault of ours.
 */
async function giveBackUncalled(dispatch: Dispatch, attemptId: string, attempt: DeliveryAttempt, now: Date, deps: DeliveryDependencies): Promise<MessageVerdict> {
  const release = { ...releaseOf(dispatch, false, retryDelaySeconds(attempt.receiveCount)), attemptId };
  if ((await writeRelease(attempt, release, now, deps, dispatch)) === 'carried') return { outcome: 'carried' };
  return failedOnOurSide(attempt, noTimeToSend());
}

/** `write` through a table that does not answer for a moment, or, still away at the deadline, `carried` on the queue for a later receive. */
async function writtenOrCarried(
  attempt: DeliveryAttempt,
  carried: Pick<DispatchMessage, 'verdict' | 'release'>,
  what: string,
  deps: DeliveryDependencies,
  known: Dispatch | undefined,
  write: () => Promise<boolean>,
): Promise<boolean | 'carried'> {
  try {
    return await untilRecorded(attempt, write);
  } catch (error) {
    if (!isDependencyUnavailable(error)) throw error;
    try {
      // No pause of its own: each receive of it asks the table until its own deadline.
      await enqueueDispatch({ dispatchId: attempt.dispatchId, workspaceId: known?.workspaceId ?? attempt.workspaceId, ...carried }, deps.queue ?? defaultQueue());
    } catch (queueError) {
      // The claim stands, and the message comes back: the reconciler judges the attempt (decision 63).
      logger.warn('Neither the table nor the queue took the provider’s verdict', { dispatchId: attempt.dispatchId, verdict: what, error: queueError as Error });
      throw error;
    }
    logger.warn('The table did not take the provider’s verdict; it waits on the queue until it does', { dispatchId: attempt.dispatchId, verdict: what, error: error as Error });
    return 'carried';
  }
}

/** The queue message's outcome once the verdict was written or carried. */
const settledAs = (written: boolean | 'carried', outcome: CarriedVerdict['to']): MessageVerdict => ({ outcome: written === 'carried' ? 'carried' : outcome });

/** A verdict an earlier receive could not write: written now, or carried on again. The provider is not asked. */
async function recordCarriedVerdict(attempt: DeliveryAttempt, verdict: CarriedVerdict, deps: DeliveryDependencies): Promise<MessageVerdict> {
  const written = await writtenOrCarried(attempt, { verdict }, verdict.to, deps, undefined, () => applyCarriedVerdict(attempt, verdict, deps));
  return written === false ? { outcome: 'skipped' } : settledAs(written, verdict.to);
}

/**
 * A carried verdict settles its own claim, while no later one was taken: its message can wait on the
 * queue, or in the DLQ until an operator moves it back, for longer than the reconciler takes to give
 * a dead claim back and queue the dispatch again. Written on a later attempt's dispatch (sent, in
 * flight, given back or `unknown`), a refusal failed a message that attempt sent, and an `unknown`
 * settled one it was still asking for (decision 211). A claim given back with none taken since is
 * still its own: the reconciler may give a dead claim back before its carried verdict lands
 * (decision 161).
 */
async function applyCarriedVerdict(attempt: DeliveryAttempt, verdict: CarriedVerdict, deps: DeliveryDependencies): Promise<boolean> {
  const current = await getDispatchById(attempt.dispatchId, deps.store ?? defaultStore(), true);
  if (!current) return false;
  const ofClaim = verdict.ofClaim ?? claimOfUnnamed(current, verdict);
  if (ofClaim === undefined || !holdsAttempt(current, { ofClaim })) {
    logger.warn('Skipped a carried verdict: its attempt is not the dispatch’s last', { dispatchId: attempt.dispatchId, verdict: verdict.to, ofClaim: verdict.ofClaim, attempts: current.attempts, status: current.status });
    return false;
  }
  return applyVerdict(attempt, { ...verdict, ofClaim }, deps, current);
}

/**
 * The claim a verdict carried before it named one (decision 211) can be shown to settle: the
 * dispatch's only claim, or the one in flight taken before the verdict (a later attempt's claim
 * comes minutes after it: the reconciler's release and wait). Anything else may be a later
 * attempt's, and the verdict is skipped.
 */
function claimOfUnnamed(current: Dispatch, verdict: CarriedVerdict): number | undefined {
  if (current.attempts === 1) return 1;
  return current.attemptStartedAt && current.attemptStartedAt <= verdict.occurredAt ? current.attempts : undefined;
}

/**
 * A release an earlier receive could not write: written now (or carried on again), and the dispatch
 * queued again as a plain delivery, held back the back-off the provider's answer earned. Its
 * delivery then takes its number's pace and its wait as any other; delivered in this receive, it
 * skipped both, and the pace held the release itself back as long as the number was busy, past
 * the reconciler's wait for it (decision 164). With nothing left to release (an earlier receive of
 * this message wrote it, or the dispatch moved on) it is queued all the same: its claim decides.
 * A queue that refuses fails the record, which comes back and queues it then.
 */
async function recordCarriedRelease(attempt: DeliveryAttempt, release: CarriedRelease, now: Date, deps: DeliveryDependencies): Promise<MessageVerdict> {
  if ((await writeRelease(attempt, release, now, deps)) === 'carried') return { outcome: 'carried' };
  await enqueueDispatch({ dispatchId: attempt.dispatchId, workspaceId: attempt.workspaceId }, deps.queue ?? defaultQueue(), release.retryAfterSeconds);
  return { outcome: 'requeued' };
}

/**
 * WhatsApp holds the template's messages for now (template pacing): the reconciler must not read
 * the number's reports as proof that a dead attempt of it was never taken (decision 148). The mark
 * is best kept, not required: the next held send of the template writes it again. It is given up
 * halfway to the verdict's deadline, so that the verdict keeps time to be written or carried.
 */
async function noteHeld(phoneNumberId: string | undefined, dispatch: Dispatch, sentAt: string, attempt: DeliveryAttempt, store?: Store): Promise<void> {
  messageMetrics.heldForQualityAssessment();
  // On the number the claim names (the stack's default one too, decision 219), whose reports judge a dead claim.
  if (!phoneNumberId) return;
  const deadline = writeDeadlineOf(attempt);
  try {
    await answeredBy(noteHeldSend(phoneNumberId, dispatch.templateId, sentAt, store), Date.now() + (deadline - Date.now()) / 2);
  } catch (error) {
    logger.warn('Could not note that WhatsApp held a message of the template', { dispatchId: dispatch.dispatchId, templateId: dispatch.templateId, error: error as Error });
  }
}

/**
 * Records the provider's verdict through a table that does not answer for a moment (decision 133).
 * Lost, it would leave the claim standing: a refusal, of which no report ever comes, then reads as
 * an attempt the provider never had, and the reconciler asks the provider again (decision 63). A
 * retried write recognises its own earlier success: each is conditional on the claim it settles.
 */
const untilRecorded = <T>(attempt: DeliveryAttempt, write: () => Promise<T>): Promise<T> => untilAnswered(write, writeDeadlineOf(attempt), { abandonAtDeadline: true });

const writeDeadlineOf = (attempt: DeliveryAttempt) => attempt.writeDeadline ?? attempt.deadline ?? Date.now() + VERDICT_WRITE_DEADLINE_MS;

/**
 * A MARKETING message to a number that opted out since the send was accepted (a paced campaign,
 * WhatsApp's "later", a backlog): refused as the send would refuse it now, and WhatsApp is not
 * asked (decision 207). An opt-out that cannot be read is a fault of ours before WhatsApp was
 * asked: the claim is given back uncounted, as for a connection never made, and nothing is sent
 * until it can be read.
 */
async function marketingRefusal(dispatch: Dispatch, store?: Store): Promise<ProviderError | undefined> {
  try {
    if (!(await getMarketingOptOut(dispatch.workspaceId, dispatch.to, store))) return undefined;
  } catch (error) {
    return new ProviderError('transient', 'opt_out_unread', (error as Error).message, { cause: error, reached: false });
  }
  return new ProviderError('permanent', 'recipient_opted_out', 'The number opted out of the workspace’s marketing messages while this one waited');
}

interface Sender {
  provider: Provider;
  /** The workspace's own number, named in the request; none on the stack's default number, which the provider sends from. */
  phoneNumberId: string | undefined;
  /**
   * The number the attempt sends from, its own or the stack's default one: what the claim records,
   * so WhatsApp's reports apply by it (decisions 181, 219). None when the provider has no default.
   */
  sendsFrom: string | undefined;
}

/**
 * The workspace's provider, ready to send: its settings read and its credentials loaded, which
 * name the stack's default number. A table that does not answer throws (the message comes back);
 * credentials that cannot be loaded are returned as the ProviderError that says so, which no
 * request reached the provider for.
 */
async function readySender(workspaceId: string, deps: DeliveryDependencies, now: Date): Promise<Sender | ProviderError> {
  const workspace = await lookUpWorkspace(workspaceId, now, deps.store);
  const provider = deps.providerFor(workspace.settings);
  let readiness: ProviderReadiness | undefined;
  try {
    readiness = await provider.ready?.();
  } catch (error) {
    return error instanceof ProviderError ? error : new ProviderError('transient', 'provider_not_ready', (error as Error).message, { cause: error, reached: false });
  }
  const phoneNumberId = sendingNumberOf(workspace);
  return { provider, phoneNumberId, sendsFrom: phoneNumberId ?? readiness?.defaultPhoneNumberId };
}

/** What the consumer does with the queue message: done with it, or see it again after a pause. */
export type MessageVerdict = { outcome: Exclude<DeliveryOutcome, 'retry'> } | { outcome: 'retry'; afterSeconds: number; cause?: Error };

/** Retries back off through the message's visibility: 2, 4, 8… seconds, never past the queue's own timeout. */
export const retryDelaySeconds = (receiveCount: number) => Math.min(dispatchQueueSettings.visibilityTimeoutSeconds, 2 ** receiveCount);

/**
 * A refusal that lasts minutes (WhatsApp's limit on messages to one person, a number in
 * maintenance) backs off by the provider's answers so far: 4, 16, 64, then the queue's timeout
 * (180 s). The five answers a dispatch gets then span about four and a half minutes, where 2, 4,
 * 8, 16 spanned half of one (decision 138).
 */
export const longRetryDelaySeconds = (laterAnswers: number) => Math.min(dispatchQueueSettings.visibilityTimeoutSeconds, 4 ** laterAnswers);

/**
 * WhatsApp down backs off as those refusals do, but for 2 minutes at most: the four back-offs of one
 * queue message (its fifth answer lets it go for the reconciler to queue again) then add up to 8
 * minutes, under the dispatch-queue-age alarm's 10 (lib/constructs/monitoring.ts). At the queue's
 * 180 s a message queued again waited 12, so every outage past a quarter of an hour paged as a
 * stuck queue, and the reconciler, which waits out the queue's oldest age, queued the next later
 * (decision 238).
 */
const OUTAGE_RETRY_CAP_SECONDS = 120;
export const outageRetryDelaySeconds = (laterAnswers: number) => Math.min(OUTAGE_RETRY_CAP_SECONDS, longRetryDelaySeconds(laterAnswers));

/**
 * How long the provider may stay down before the messages waiting for it fail (decision 228):
 * WhatsApp's outages last minutes, often tens of them, and a message failed in one is one the
 * integration must send again.
 */
export const OUTAGE_BUDGET_SECONDS = 30 * 60;

/**
 * The provider's "later" answers a dispatch gets, the last of which fails it: as many as the queue
 * gives receives (decision 132), or, for an outage, as many as its long back-offs take to wait
 * OUTAGE_BUDGET_SECONDS (4, 16, 64, then 120 s: the nineteenth answer, 31 min of back-off in).
 */
export function laterAnswerBudget(backOff: ProviderError['backOff'], maxReceives: number): number {
  if (backOff !== 'outage') return maxReceives;
  let answers = 1;
  for (let waited = 0; waited < OUTAGE_BUDGET_SECONDS; answers++) waited += outageRetryDelaySeconds(answers);
  return answers;
}

/** The provider's "later" answers that spend decision 132's five: all but those that said it is down, which spend their half hour (decision 231). */
const otherLaterAnswers = (dispatch: Dispatch) => (dispatch.laterAnswers ?? 0) - (dispatch.outageAnswers ?? 0);

const retryAfterReceive = (attempt: DeliveryAttempt) => ({ outcome: 'retry' as const, afterSeconds: retryDelaySeconds(attempt.receiveCount) });

/**
 * A fault of ours before the provider had the request (its credentials not loaded, a connection
 * never made): the message comes back after the short back-off, and after its last receive goes to
 * the DLQ, as when the table is away. Settled on the dispatch, it spent the provider's answers on an
 * outage of ours and failed messages WhatsApp never saw (decision 205).
 */
const failedOnOurSide = (attempt: DeliveryAttempt, cause: ProviderError): MessageVerdict => ({ ...retryAfterReceive(attempt), cause });

/**
 * The consumer's retry policy for one queue message: deliver it, and when the provider asked to
 * come back later, or the delivery failed on the way (the table did not answer, say), retry after
 * a short back-off rather than the queue's whole visibility timeout. The claim keeps a second
 * provider call out whatever happened.
 */
export async function deliverQueuedDispatch(attempt: DeliveryAttempt, deps: DeliveryDependencies): Promise<MessageVerdict> {
  try {
    return await deliver(attempt, deps);
  } catch (error) {
    return { ...retryAfterReceive(attempt), cause: error instanceof Error ? error : new Error('Delivery failed', { cause: error }) };
  }
}

/** The provider call, timed whatever its verdict. */
async function callProvider(provider: Provider, message: ProviderMessage): Promise<ProviderAcceptance> {
  const startedAt = performance.now();
  try {
    return await provider.send(message);
  } finally {
    messageMetrics.providerLatency(Math.round(performance.now() - startedAt));
  }
}

/** The release of the claim `dispatch` holds, and the back-off its retry waits. */
const releaseOf = (dispatch: Dispatch, providerSaidLater: ProviderSaidLater, retryAfterSeconds: number): CarriedRelease => ({
  attemptStartedAt: dispatch.attemptStartedAt!,
  providerSaidLater: providerSaidLater !== false,
  ...(providerSaidLater === 'outage' ? { outage: true as const } : {}),
  retryAfterSeconds,
});

async function recordVerdict(dispatch: Dispatch, verdict: ProviderError, attempt: DeliveryAttempt, now: Date, deps: DeliveryDependencies): Promise<MessageVerdict> {
  const occurredAt = now.toISOString();
  switch (verdict.kind) {
    case 'permanent':
      return settledAs(await writeVerdict(attempt, { to: 'failed', occurredAt, failureCode: verdict.code, event: 'REJECTED' }, deps, dispatch), 'failed');
    case 'unknown': {
      // WhatsApp may have it: its reports settle it, or, showing it never took it, the reconciler
      // sends it again, while the provider's answers leave a retry (decisions 132, 227).
      const judged = otherLaterAnswers(dispatch) + 1 < attempt.maxReceives ? { judgedByReports: true as const } : {};
      return settledAs(await writeVerdict(attempt, { to: 'unknown', occurredAt, ...judged }, deps, dispatch), 'unknown');
    }
    case 'credentials':
      // Every queued message would fail alike until the token is fixed: hold them all, fail none.
      messageMetrics.deliveryHeld();
      logger.warn('WhatsApp refused the access token; delivery held', { dispatchId: dispatch.dispatchId, code: verdict.code });
      if ((await writeRelease(attempt, releaseOf(dispatch, false, retryDelaySeconds(attempt.receiveCount)), now, deps, dispatch)) === 'carried') return { outcome: 'carried' };
      return isLastReceive(attempt) ? { outcome: 'held' } : retryAfterReceive(attempt);
    case 'transient': {
      // No answer of the provider's (a connection never made): the claim is given back uncounted.
      if (!verdict.reached) {
        if ((await writeRelease(attempt, releaseOf(dispatch, false, retryDelaySeconds(attempt.receiveCount)), now, deps, dispatch)) === 'carried') return { outcome: 'carried' };
        return failedOnOurSide(attempt, verdict);
      }
      messageMetrics.deliveryDeferred();
      // The budget is the provider's answers, as many as the queue gives receives: a receive spent
      // before the provider was asked (a consumer killed, the table away) is not one of them. An
      // outage's answers spend their own, and the others theirs (decision 231): shared, ten minutes
      // of outage spent a throughput limit's five, and its first 130429 as WhatsApp came back failed
      // the message.
      const outage = verdict.backOff === 'outage';
      if ((outage ? (dispatch.outageAnswers ?? 0) : otherLaterAnswers(dispatch)) + 1 >= laterAnswerBudget(verdict.backOff, attempt.maxReceives)) {
        return settledAs(await writeVerdict(attempt, { to: 'failed', occurredAt, failureCode: `retries_exhausted:${verdict.code}` }, deps, dispatch), 'failed');
      }
      // Each kind backs off by its own answers, as it spends its own budget: an outage's answers
      // before a 131056 stretched its four back-offs to 180 s each, past the queue-age alarm.
      const afterSeconds =
        verdict.backOff === 'short' ? retryDelaySeconds(attempt.receiveCount) : outage ? outageRetryDelaySeconds((dispatch.outageAnswers ?? 0) + 1) : longRetryDelaySeconds(otherLaterAnswers(dispatch) + 1);
      if ((await writeRelease(attempt, releaseOf(dispatch, outage ? 'outage' : true, afterSeconds), now, deps, dispatch)) === 'carried') return { outcome: 'carried' };
      if (!isLastReceive(attempt)) return { outcome: 'retry', afterSeconds };
      logger.warn('Provider asked for later on the last receive; left to the reconciler', { dispatchId: dispatch.dispatchId, code: verdict.code });
      return { outcome: 'held' };
    }
  }
}

/**
 * The claim was refused: already settled, or held by another attempt, live or dead. A dead one is
 * the reconciler's to judge (sent again or settled `unknown`, decision 63), never this message's.
 */
function settleUnclaimable(current: Dispatch | undefined): 'skipped' {
  if (!current) logger.warn('Queue named a dispatch that does not exist');
  return 'skipped';
}
