import { randomUUID } from 'node:crypto';
import { ConflictError, UpstreamUnavailableError, ValidationError } from '../../shared/errors';
import { defaultQueue, defaultStore } from '../../shared/default-store';
import { logger } from '../../shared/logger';
import { messageMetrics } from '../../shared/metrics';
import type { QueueTarget } from '../../shared/queue';
import type { Store } from '../../shared/store';
import { transactWrite, untilAnswered, type NamedWrites } from '../../shared/writes';
import { conversationMessageWrites, conversationOf } from '../conversations/conversation-item';
import { toE164 } from '../phones/phone-number';
import { isListable } from '../templates/template';
import { lookUpTemplate, sendableVersion } from '../templates/template-lookup';
import { bodyParameters, checkVariables, renderBody } from '../templates/render';
import { lookUpWorkspace } from '../workspaces/workspace-lookup';
import { dailySendClaim, dailySendKey, dailySendRelease } from './daily-send';
import type { Dispatch, DispatchStatus } from './dispatch';
import { dispatchCreate, enqueueFailedUpdate } from './dispatch-repository';
import { enqueueDispatch } from './dispatch-queue';
import { completeIdempotencyRecord, getIdempotencyRecord, idempotencyClaim, idempotencyRelease, replayableResponse, type IdempotencyRecord } from './idempotency';
import { takeSendAllowance } from './send-rate';

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
  idempotency?: { key: string; fingerprint: string };
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

const TRANSACTION_ATTEMPTS = 3;
/**
 * How long a send keeps asking an unreachable table whether its transaction committed: long
 * enough to ride out a blip, well inside the send function's 10 s timeout.
 */
export const WRITE_OUTCOME_DEADLINE_MS = 6_000;

/**
 * Queues a WhatsApp template message (docs/api.md#send-a-message). Writes, in one transaction, the
 * dispatch (`queued`), its conversation message and conversation, and — when asked for — the
 * idempotency record and the daily-send marker; then puts one message on the dispatch queue.
 * Nothing is written for a request that fails validation.
 */
export async function sendTemplateMessage(command: SendTemplateMessage, deps: Partial<SendDependencies> = {}): Promise<SendResult> {
  const store = deps.store ?? defaultStore();
  const queue = deps.queue ?? defaultQueue();
  const { workspaceId, now } = command;

  const to = toE164(command.to);
  if (!to) throw new ValidationError(`to: "${command.to}" is not a valid phone number`);

  const template = await lookUpTemplate(workspaceId, command.templateId, now, store);
  if (!template || !isListable(template)) {
    throw new ValidationError(`content.templateId: template ${command.templateId} does not exist or is not approved in this workspace`, 'template_not_found');
  }
  const version = sendableVersion(template);
  if (!version) throw new ValidationError(`content.templateId: template ${template.id} has no READY version`, 'template_not_ready');

  const values = new Map(Object.entries(command.variables));
  const { missing, unknown } = checkVariables(version, values);
  if (missing.length) throw new ValidationError(`content.variables: missing required variables: ${missing.join(', ')}`, 'missing_variables');
  if (unknown.length) throw new ValidationError(`content.variables: not defined by template ${template.id}: ${unknown.join(', ')}`);

  const workspace = await lookUpWorkspace(workspaceId, now, store);
  await takeSendAllowance(workspaceId, workspace.settings.sendsPerMinute, now, store);

  const createdAt = now.toISOString();
  const dispatch: Dispatch = {
    dispatchId: randomUUID(),
    workspaceId,
    channel: 'whatsapp',
    to,
    contactName: command.contactName ?? null,
    templateId: template.id,
    templateName: template.displayName,
    templateVersionId: version.id,
    providerTemplateName: template.providerName,
    language: template.language,
    variables: command.variables,
    renderedText: renderBody(version.body, values),
    bodyParameters: bodyParameters(version.body, values),
    tagIds: [...new Set(command.tagIds)],
    trackingTags: [...new Set(command.trackingTags)],
    source: 'EXTERNAL_API',
    apiClient: command.apiClient,
    status: 'queued',
    creditCost: version.creditCostPerSend,
    amountRupiah: version.creditCostPerSend * workspace.rupiahPerCredit,
    conversationId: conversationOf({ workspaceId, channel: 'whatsapp', contactPhone: to }),
    createdAt,
    updatedAt: createdAt,
    sentAt: null,
    deliveredAt: null,
    failureCode: null,
  };
  const dailySend = workspace.settings.dedupe === 'wib-day' ? dailySendKey(workspaceId, now, to, template.id) : undefined;
  const idempotencyRecord: IdempotencyRecord | undefined = command.idempotency && {
    key: command.idempotency.key,
    fingerprint: command.idempotency.fingerprint,
    dispatchId: dispatch.dispatchId,
    state: 'in_flight',
    response: { dispatchId: dispatch.dispatchId, status: dispatch.status },
    createdAt,
  };
  const conversation = conversationMessageWrites({
    workspaceId,
    channel: dispatch.channel,
    contactPhone: to,
    contactName: dispatch.contactName,
    messageId: dispatch.dispatchId,
    direction: 'outbound',
    type: 'template',
    text: dispatch.renderedText,
    createdAt,
    dispatchId: dispatch.dispatchId,
    templateId: dispatch.templateId,
  });

  const writes = {
    dispatch: dispatchCreate(dispatch),
    conversationMessage: conversation.message,
    conversation: conversation.conversation,
    idempotency: idempotencyRecord && idempotencyClaim(workspaceId, idempotencyRecord, now),
    dailySend: dailySend && dailySendClaim(dailySend, dispatch.dispatchId, now),
  };
  const committed = await commitSend(command, writes, store);
  if (committed.outcome === 'replayed') return { ...committed.response, replayed: true };
  if (committed.outcome === 'duplicate') {
    throw new ConflictError('duplicate_send', `Template ${template.id} was already sent to ${to} today (WIB); this workspace allows one such send per day`);
  }

  try {
    await enqueueDispatch({ dispatchId: dispatch.dispatchId, workspaceId }, queue);
  } catch (error) {
    logger.error('Dispatch queue refused a message; marking the dispatch failed', { dispatchId: dispatch.dispatchId, error: error as Error });
    // The idempotency key and the daily-send marker are released, so a retry can succeed.
    await transactWrite(store, {
      dispatch: enqueueFailedUpdate(dispatch.dispatchId, now),
      idempotency: idempotencyRecord && idempotencyRelease(workspaceId, idempotencyRecord.key),
      dailySend: dailySend && dailySendRelease(dailySend),
    });
    messageMetrics.failed('enqueue_failed');
    throw new UpstreamUnavailableError('The message queue is unavailable; the message was not queued. Retry the request.', { cause: error });
  }

  if (idempotencyRecord) {
    // The send is done; failing to mark the record only means a replay waits out IN_FLIGHT_WINDOW_MS.
    await completeIdempotencyRecord(workspaceId, idempotencyRecord.key, store).catch((error: unknown) =>
      logger.warn('Could not mark the idempotency record complete', { error: error as Error }),
    );
  }
  messageMetrics.queued();
  return { dispatchId: dispatch.dispatchId, status: dispatch.status, replayed: false };
}

type SendWrites = NamedWrites<'dispatch' | 'conversationMessage' | 'conversation' | 'idempotency' | 'dailySend'>;

type CommitOutcome = { outcome: 'committed' } | { outcome: 'replayed'; response: IdempotencyRecord['response'] } | { outcome: 'duplicate' };

/**
 * Commits the send's transaction: `committed` (now, or on an earlier try whose answer was lost),
 * `replayed` when the Idempotency-Key holds an earlier request's finished result, `duplicate`
 * when the daily-send marker was taken. A transaction the table does not answer may have
 * committed, so it is tried again until the table answers or WRITE_OUTCOME_DEADLINE_MS passes;
 * had it committed, the new try is refused on the dispatch's own condition. Past the deadline the
 * error stands (503), and a transaction that did commit is left to the reconciler.
 */
async function commitSend(command: SendTemplateMessage, writes: SendWrites, store: Store): Promise<CommitOutcome> {
  const deadline = Date.now() + WRITE_OUTCOME_DEADLINE_MS;
  for (let attempt = 1; ; attempt++) {
    const result = await untilAnswered(() => transactWrite(store, writes), deadline, (error) =>
      logger.warn('Send transaction unanswered; trying it again', { error: error as Error }),
    );
    if (result.committed) return { outcome: 'committed' };
    const { refused } = result;
    // The dispatch id is new: only an earlier try of this transaction, whose answer was lost, wrote it.
    if (refused.dispatch === 'ConditionalCheckFailed') return { outcome: 'committed' };
    if (refused.idempotency && command.idempotency) {
      const record = await getIdempotencyRecord(command.workspaceId, command.idempotency.key, store);
      // No record: its request failed and released the key. Claim it ourselves.
      if (record) return { outcome: 'replayed', response: replayableResponse(record, command.idempotency.fingerprint, command.now) };
    } else if (refused.dailySend === 'ConditionalCheckFailed') {
      return { outcome: 'duplicate' };
    } else if (!Object.values(refused).includes('TransactionConflict')) {
      throw new Error(`Send transaction cancelled: ${JSON.stringify(refused)}`);
    }
    if (attempt >= TRANSACTION_ATTEMPTS) {
      throw new ConflictError('idempotency_conflict', 'Concurrent requests are writing this message; retry shortly');
    }
    // A concurrent transaction held one of the items (two sends to one conversation): try again.
    await new Promise((resolve) => setTimeout(resolve, 10 + Math.random() * 40 * attempt));
  }
}
