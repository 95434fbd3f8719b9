import { dispatchQueueSettings } from '../../shared/dispatch-queue-settings';
import { logger } from '../../shared/logger';
import { messageMetrics } from '../../shared/metrics';
import type { Store } from '../../shared/store';
import type { Dispatch } from '../messages/dispatch';
import { ProviderError, type Provider, type ProviderMessage } from '../providers/provider';
import { lookUpWorkspace } from '../workspaces/workspace-lookup';
import { sendingNumberOf } from '../workspaces/workspace-number';
import type { WorkspaceSettings } from '../workspaces/workspace';
import { claimDispatch, releaseClaim } from './delivery-attempt';
import { applyStatus } from './dispatch-status';

/**
 * An attempt older than this without a verdict belongs to a consumer that died mid-call: the
 * provider may have the message, so it is never sent again, only settled as unknown.
 */
export const STALE_ATTEMPT_MS = 60_000;

/**
 * `held`: the provider refused our credentials on the message's last receive; the attempt is
 * released and its queue message let go, so it never reaches the DLQ, and the reconciler queues
 * it again after RELEASED_GRACE_MS, for as long as the token stays refused.
 */
export type DeliveryOutcome = 'sent' | 'failed' | 'unknown' | 'retry' | 'held' | 'skipped';

export interface DeliveryAttempt {
  dispatchId: string;
  /** The queue message's; spares the claim a read (lambdas/domain/delivery/delivery-attempt.ts). */
  workspaceId?: string;
  /** How often the queue has handed this message out, this time included. */
  receiveCount: number;
  /** After this many receives the message goes to the DLQ: the last chance to settle it. */
  maxReceives: number;
}

export interface DeliveryDependencies {
  providerFor: (settings: Pick<WorkspaceSettings, 'provider'>) => Provider;
  store?: Store;
  now?: () => Date;
}

/**
 * Delivers one queued dispatch at most once (issue 4): claim it, call the workspace's provider,
 * and record the verdict. A redelivered message, a second consumer or a retry after a crash
 * finds the claim taken and never calls the provider again.
 */
export async function deliverDispatch(attempt: DeliveryAttempt, deps: DeliveryDependencies): Promise<DeliveryOutcome> {
  const now = deps.now ?? (() => new Date());
  const claim = await claimDispatch(attempt.dispatchId, now(), deps.store, attempt.workspaceId);
  if (!claim.claimed) return settleUnclaimable(claim.current, now(), deps.store);

  const dispatch = claim.dispatch;
  const workspace = await lookUpWorkspace(dispatch.workspaceId, now(), deps.store);
  const phoneNumberId = sendingNumberOf(workspace);
  try {
    const { providerMessageId } = await callProvider(deps.providerFor(workspace.settings), {
      dispatchId: dispatch.dispatchId,
      to: dispatch.to,
      templateName: dispatch.providerTemplateName,
      language: dispatch.language,
      bodyParameters: dispatch.bodyParameters,
      ...dispatch.templateParameters,
      ...(phoneNumberId ? { phoneNumberId } : {}),
    });
    await applyStatus(dispatch.dispatchId, { to: 'sent', occurredAt: now().toISOString(), providerMessageId }, deps.store, dispatch);
    return 'sent';
  } catch (error) {
    const verdict = error instanceof ProviderError ? error : new ProviderError('unknown', 'provider_fault', (error as Error).message, { cause: error });
    logger.info('Provider did not accept', { dispatchId: dispatch.dispatchId, kind: verdict.kind, code: verdict.code });
    return recordVerdict(dispatch, verdict, attempt, now(), deps.store);
  }
}

/** What the consumer does with the queue message: done with it, or see it again after a pause. */
export type MessageVerdict = { outcome: Exclude<DeliveryOutcome, 'retry'> } | { outcome: 'retry'; afterSeconds: number; cause?: Error };

/** Retries back off through the message's visibility: 2, 4, 8… seconds, never past the queue's own timeout. */
export const retryDelaySeconds = (receiveCount: number) => Math.min(dispatchQueueSettings.visibilityTimeoutSeconds, 2 ** receiveCount);

/**
 * The consumer's retry policy for one queue message: deliver it, and when the provider asked to
 * come back later, or the delivery failed on the way (the table did not answer, say), retry after
 * a short back-off rather than the queue's whole visibility timeout. The claim keeps a second
 * provider call out whatever happened.
 */
export async function deliverQueuedDispatch(attempt: DeliveryAttempt, deps: DeliveryDependencies): Promise<MessageVerdict> {
  try {
    const outcome = await deliverDispatch(attempt, deps);
    return outcome === 'retry' ? { outcome, afterSeconds: retryDelaySeconds(attempt.receiveCount) } : { outcome };
  } catch (error) {
    return { outcome: 'retry', afterSeconds: retryDelaySeconds(attempt.receiveCount), cause: error instanceof Error ? error : new Error('Delivery failed', { cause: error }) };
  }
}

/** The provider call, timed whatever its verdict. */
async function callProvider(provider: Provider, message: ProviderMessage): Promise<{ providerMessageId: string }> {
  const startedAt = performance.now();
  try {
    return await provider.send(message);
  } finally {
    messageMetrics.providerLatency(Math.round(performance.now() - startedAt));
  }
}

async function recordVerdict(dispatch: Dispatch, verdict: ProviderError, attempt: DeliveryAttempt, now: Date, store?: Store): Promise<DeliveryOutcome> {
  const occurredAt = now.toISOString();
  switch (verdict.kind) {
    case 'permanent':
      await applyStatus(dispatch.dispatchId, { to: 'failed', occurredAt, failureCode: verdict.code, event: 'REJECTED' }, store, dispatch);
      return 'failed';
    case 'unknown':
      await applyStatus(dispatch.dispatchId, { to: 'unknown', occurredAt }, store, dispatch);
      return 'unknown';
    case 'credentials':
      // Every queued message would fail alike until the token is fixed: hold them all, fail none.
      messageMetrics.deliveryHeld();
      logger.warn('WhatsApp refused the access token; delivery held', { dispatchId: dispatch.dispatchId, code: verdict.code });
      await releaseClaim(dispatch, now, store);
      return attempt.receiveCount >= attempt.maxReceives ? 'held' : 'retry';
    case 'transient':
      if (attempt.receiveCount >= attempt.maxReceives) {
        await applyStatus(dispatch.dispatchId, { to: 'failed', occurredAt, failureCode: `retries_exhausted:${verdict.code}` }, store, dispatch);
        return 'failed';
      }
      await releaseClaim(dispatch, now, store);
      return 'retry';
  }
}

/** The claim was refused: already settled (nothing to do), or held by an attempt that died. */
async function settleUnclaimable(current: Dispatch | undefined, now: Date, store?: Store): Promise<DeliveryOutcome> {
  if (!current) {
    logger.warn('Queue named a dispatch that does not exist');
    return 'skipped';
  }
  const attemptAge = current.attemptStartedAt ? now.getTime() - Date.parse(current.attemptStartedAt) : 0;
  if (current.status === 'processing' && attemptAge > STALE_ATTEMPT_MS) {
    await applyStatus(current.dispatchId, { to: 'unknown', occurredAt: now.toISOString() }, store, current);
    return 'unknown';
  }
  return 'skipped';
}
