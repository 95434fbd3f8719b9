import { isDependencyUnavailable } from '../../shared/dependency-errors';
import { ConflictError, UpstreamUnavailableError, ValidationError } from '../../shared/errors';
import { defaultQueue, defaultStore } from '../../shared/default-store';
import { logger } from '../../shared/logger';
import { messageMetrics } from '../../shared/metrics';
import type { QueueTarget } from '../../shared/queue';
import type { Store } from '../../shared/store';
import { shortened, someNames } from '../../shared/unicode-text';
import { toE164 } from '../phones/phone-number';
import { isListable, isOnHold, type Template, type TemplateVersion } from '../templates/template';
import { lookUpTemplate, sendableVersion, unsendableParts } from '../templates/template-lookup';
import { checkVariables } from '../templates/render';
import { getMarketingOptOut } from '../workspaces/marketing-opt-out';
import type { Workspace } from '../workspaces/workspace';
import { lookUpWorkspace } from '../workspaces/workspace-lookup';
import { dailySendKey } from './daily-send';
import { draftDispatch, MAX_RENDERED_BYTES, renderedBytes, renderSend, type DispatchStatus, type RenderedSend } from './dispatch';
import { enqueueDispatch } from './dispatch-queue';
import { completeIdempotencyRecord, earlierAnswer, inFlightRecord, sendFingerprint } from './idempotency';
import { returnSendAllowance, takeSendAllowance } from './send-rate';
import { commitSend, releaseSend, type SendClaims } from './send-transaction';

export interface SendTemplateMessage {
  workspaceId: string;
  apiClient: { id: string; name: string };
  /** As given; normalized to E.164 here. */
  to: string;
  contactName?: string;
  templateId: string;
  variables: Record<string, string>;
  tagIds: string[];
  /** Trimmed already; duplicates are dropped here. */
  trackingTags: string[];
  /** The request's `Idempotency-Key` header, if it has one. */
  idempotencyKey?: string;
  /**
   * The fingerprint the release before decision 174 gave this request (`requestFingerprint` of its
   * validated body), so a retry of a request that release recorded replays. Only for the 24 hours
   * its records live after the deploy: then it, and this, can go.
   */
  formerFingerprint?: string;
  now: Date;
}

export interface SendResult {
  dispatchId: string;
  status: DispatchStatus;
  /** True when an Idempotency-Key replay returned the original result. */
  replayed: boolean;
}

export interface SendDependencies {
  store: Store;
  queue: QueueTarget;
}

/**
 * Queues a WhatsApp template message (docs/api.md#send-a-message). Writes, in one transaction, the
 * dispatch (`queued`), its conversation message and conversation, and — when asked for — the
 * idempotency record and the daily-send marker; then puts one message on the dispatch queue.
 * Nothing is written for a request that fails validation.
 */
export async function sendTemplateMessage(command: SendTemplateMessage, deps: Partial<SendDependencies> = {}): Promise<SendResult> {
  const store = deps.store ?? defaultStore();
  const { workspaceId, now } = command;

  const to = toE164(command.to);
  const idempotency =
    command.idempotencyKey === undefined ? undefined : { key: command.idempotencyKey, fingerprint: sendFingerprint({ ...command, to: to ?? command.to }), formerFingerprint: command.formerFingerprint };
  // A replay answers what the first request got before anything is checked again: a template paused
  // since, or a rate limit reached since, must not turn it into an error, nor may it use up the rate.
  const earlier = idempotency && (await earlierAnswer(workspaceId, idempotency, now, store));
  if (earlier) return { ...earlier, replayed: true };

  if (!to) throw new ValidationError(`to: "${shortened(command.to, 64)}" is not a valid phone number`);
  const { template, version, rendered } = await templateToSend(command, store);
  if (template.category === 'MARKETING' && (await getMarketingOptOut(workspaceId, to, store))) {
    throw new ValidationError(`to: ${to} opted out of this workspace's marketing messages; template ${template.id} is MARKETING`, 'recipient_opted_out');
  }
  const workspace = await lookUpWorkspace(workspaceId, now, store);
  // Once the request is known to be sendable, before anything is written: a function without its
  // queue (a test that did not set QUEUE_URL) still answers a request that fails validation.
  const queue = deps.queue ?? defaultQueue();
  const allowance = await takeSendAllowance(workspaceId, workspace.settings.sendsPerMinute, now, store);
  // A send refused from here on (a replay, a duplicate, a 409, a 502, a 503) was not one: its
  // allowance goes back, but for a table that does not answer, which would not take it either.
  let result: SendResult;
  try {
    result = await commitAndQueue(command, { to, template, version, rendered, workspace, idempotency }, { store, queue });
  } catch (error) {
    if (!isDependencyUnavailable(error)) await returnSendAllowance(allowance, store);
    throw error;
  }
  if (result.replayed) await returnSendAllowance(allowance, store);
  return result;
}

/** The send's transaction and its queue message, once the request is known to be sendable and within the rate. */
async function commitAndQueue(
  command: SendTemplateMessage,
  {
    to,
    template,
    version,
    rendered,
    workspace,
    idempotency,
  }: { to: string; template: Template; version: TemplateVersion; rendered: RenderedSend; workspace: Workspace; idempotency?: { key: string; fingerprint: string } },
  { store, queue }: SendDependencies,
): Promise<SendResult> {
  const { workspaceId, now } = command;
  const dispatch = draftDispatch({ ...command, to }, template, version, workspace, rendered);
  const claims: SendClaims = {
    idempotency: idempotency && inFlightRecord(idempotency, dispatch),
    dailySend: workspace.settings.dedupe === 'wib-day' ? dailySendKey(workspaceId, now, to, template.id) : undefined,
  };
  const committed = await commitSend(dispatch, claims, now, store);
  if (committed.outcome === 'replayed') return { ...committed.response, replayed: true };
  if (committed.outcome === 'duplicate') {
    throw new ConflictError('duplicate_send', `Template ${template.id} was already sent to ${to} today (WIB); this workspace allows one such send per day`);
  }

  try {
    await enqueueDispatch({ dispatchId: dispatch.dispatchId, workspaceId }, queue);
  } catch (error) {
    const released = await releaseSend(dispatch, claims, now, store);
    if (released === 'released') {
      logger.error('Dispatch queue refused a message; the dispatch is failed', { dispatchId: dispatch.dispatchId, error: error as Error });
      messageMetrics.failed('enqueue_failed');
      throw new UpstreamUnavailableError('The message queue is unavailable; the message was not queued. Retry the request.', { cause: error });
    }
    // Taken: a consumer has it. Unreleased, or promised to a duplicate: it stays queued, and the reconciler queues it. Either way it will be sent once.
    if (released === 'taken') logger.warn('Dispatch queue answered an error for a message it had taken; a consumer has it', { dispatchId: dispatch.dispatchId, error: error as Error });
    else if (released === 'promised') logger.error('Dispatch queue refused a message a duplicate was answered 409 for; it stays queued, and the reconciler will queue it', { dispatchId: dispatch.dispatchId, error: error as Error });
    else logger.error('Dispatch queue refused a message and the table did not take it back; the reconciler will queue it', { dispatchId: dispatch.dispatchId, error: error as Error });
  }

  if (idempotency) {
    // The send is done; failing to mark the record only means a replay waits out IN_FLIGHT_WINDOW_MS.
    await completeIdempotencyRecord(workspaceId, idempotency.key, store).catch((error: unknown) =>
      logger.warn('Could not mark the idempotency record complete', { error: error as Error }),
    );
  }
  messageMetrics.queued();
  return { dispatchId: dispatch.dispatchId, status: dispatch.status, replayed: false };
}

/** The template and version a send uses: approved in the workspace, READY, given exactly its variables. */
async function templateToSend(command: SendTemplateMessage, store: Store): Promise<{ template: Template; version: TemplateVersion; rendered: RenderedSend }> {
  const template = await lookUpTemplate(command.workspaceId, command.templateId, command.now, store);
  if (template && isOnHold(template)) {
    throw new ValidationError(`content.templateId: template ${template.id} is ${template.status} by WhatsApp and cannot be sent until it is approved again`, 'template_not_ready');
  }
  if (!template || !isListable(template)) {
    throw new ValidationError(`content.templateId: template ${command.templateId} does not exist or is not approved in this workspace`, 'template_not_found');
  }
  const unsendable = unsendableParts(template);
  if (unsendable) {
    throw new ValidationError(`content.templateId: template ${template.id} has parts this API cannot send (${unsendable.join(', ')}), so WhatsApp would refuse every message`, 'template_not_ready');
  }
  const version = sendableVersion(template);
  if (!version) throw new ValidationError(`content.templateId: template ${template.id} has no READY version`, 'template_not_ready');

  const values = new Map(Object.entries(command.variables));
  const { missing, unknown, malformed } = checkVariables(version, values);
  if (missing.length) throw new ValidationError(`content.variables: missing required variables: ${missing.join(', ')}`, 'missing_variables');
  if (unknown.length) throw new ValidationError(`content.variables: not defined by template ${template.id}: ${someNames(unknown)}`);
  if (malformed.length) throw new ValidationError(`content.variables: ${malformed.join('; ')}`);
  const rendered = renderSend(version, values);
  const bytes = renderedBytes(rendered);
  if (bytes > MAX_RENDERED_BYTES) {
    throw new ValidationError(
      `content.variables: template ${template.id} renders these values to ${Math.ceil(bytes / 1000)} KB of UTF-8 (its placeholders repeat them); at most ${MAX_RENDERED_BYTES / 1000} KB, so the message fits in one stored item`,
    );
  }
  return { template, version, rendered };
}
