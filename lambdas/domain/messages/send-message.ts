import { randomUUID } from 'node:crypto';
import { TransactWriteCommand } from '@aws-sdk/lib-dynamodb';
import { isDependencyUnavailable } from '../../shared/dependency-errors';
import { ConflictError, UpstreamUnavailableError, ValidationError } from '../../shared/errors';
import { defaultQueue, defaultStore } from '../../shared/default-store';
import { logger } from '../../shared/logger';
import { messageMetrics } from '../../shared/metrics';
import type { QueueTarget } from '../../shared/queue';
import type { Store } from '../../shared/store';
import { keys, indexKeys } from '../../shared/table';
import { conversationIdFor } from '../conversations/conversation-id';
import { toE164 } from '../phones/phone-number';
import { isListable } from '../templates/template';
import { lookUpTemplate, sendableVersion } from '../templates/template-lookup';
import { bodyParameters, checkVariables, renderBody } from '../templates/render';
import { wibDay } from '../time/wib';
import { lookUpWorkspace } from '../workspaces/workspace-lookup';
import type { Dispatch, DispatchStatus } from './dispatch';
import { dispatchItem, failUnqueuedDispatch } from './dispatch-repository';
import { enqueueDispatch } from './dispatch-queue';
import { completeIdempotencyRecord, getIdempotencyRecord, idempotencyPut, IN_FLIGHT_WINDOW_MS, type IdempotencyRecord } from './idempotency';
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

const PREVIEW_LENGTH = 120;
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
    conversationId: conversationIdFor(workspaceId, 'whatsapp', to),
    createdAt,
    updatedAt: createdAt,
    sentAt: null,
    deliveredAt: null,
    failureCode: null,
  };
  const dailySendKey = workspace.settings.dedupe === 'wib-day' ? keys.dailySend(workspaceId, wibDay(now), to, template.id) : undefined;
  const idempotencyRecord: IdempotencyRecord | undefined = command.idempotency && {
    key: command.idempotency.key,
    fingerprint: command.idempotency.fingerprint,
    dispatchId: dispatch.dispatchId,
    state: 'in_flight',
    response: { dispatchId: dispatch.dispatchId, status: dispatch.status },
    createdAt,
  };

  const items = [
    { Put: { TableName: store.tableName, Item: dispatchItem(dispatch), ConditionExpression: 'attribute_not_exists(pk)' } },
    { Put: { TableName: store.tableName, Item: conversationMessageItem(dispatch) } },
    { Update: conversationUpdate(dispatch, store.tableName) },
    ...(idempotencyRecord ? [{ Put: idempotencyPut(workspaceId, idempotencyRecord, now, store.tableName) }] : []),
    ...(dailySendKey
      ? [{ Put: { TableName: store.tableName, Item: { ...dailySendKey, entity: 'dailySend', dispatchId: dispatch.dispatchId, ttl: Math.floor(now.getTime() / 1000) + 2 * 86_400 }, ConditionExpression: 'attribute_not_exists(pk)' } }]
      : []),
  ];
  const indexOf = { idempotency: idempotencyRecord ? 3 : -1, dailySend: dailySendKey ? items.length - 1 : -1 };

  const deadline = Date.now() + WRITE_OUTCOME_DEADLINE_MS;
  for (let attempt = 1; ; attempt++) {
    const reasons = await transact(store, items, deadline);
    if (!reasons) break;
    // The dispatch id is new: only an earlier try of this transaction, whose answer was lost, wrote it.
    if (reasons[0] === 'ConditionalCheckFailed') break;
    if (indexOf.idempotency >= 0 && reasons[indexOf.idempotency] !== 'None') {
      const replay = await resolveIdempotencyClash(command, store, now);
      if (replay) return replay;
      // The record vanished: its request failed and released the key. Claim it ourselves.
    } else if (indexOf.dailySend >= 0 && reasons[indexOf.dailySend] === 'ConditionalCheckFailed') {
      throw new ConflictError('duplicate_send', `Template ${template.id} was already sent to ${to} today (WIB); this workspace allows one such send per day`);
    } else if (!reasons.includes('TransactionConflict')) {
      throw new Error(`Send transaction cancelled: ${reasons.join(', ')}`);
    }
    if (attempt >= TRANSACTION_ATTEMPTS) {
      throw new ConflictError('idempotency_conflict', 'Concurrent requests are writing this message; retry shortly');
    }
    // A concurrent transaction held one of the items (two sends to one conversation): try again.
    await new Promise((resolve) => setTimeout(resolve, 10 + Math.random() * 40 * attempt));
  }

  try {
    await enqueueDispatch({ dispatchId: dispatch.dispatchId, workspaceId }, queue);
  } catch (error) {
    logger.error('Dispatch queue refused a message; marking the dispatch failed', { dispatchId: dispatch.dispatchId, error: error as Error });
    await failUnqueuedDispatch(dispatch, { ...(idempotencyRecord ? { idempotencyKey: idempotencyRecord.key } : {}), ...(dailySendKey ? { dailySendKey } : {}) }, now, store);
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

/**
 * Cancellation reason codes, one per item, or undefined when the transaction committed. A table
 * that does not answer leaves the outcome unknown (it may have committed before the connection
 * dropped), so the same transaction is tried again until the table answers or `deadline` passes;
 * had it committed, the new try is cancelled on the dispatch's own condition. Past the deadline
 * the error stands (503), and a transaction that did commit is left to the reconciler.
 */
async function transact(store: Store, items: NonNullable<ConstructorParameters<typeof TransactWriteCommand>[0]['TransactItems']>, deadline: number): Promise<string[] | undefined> {
  for (let pause = 100; ; pause = Math.min(pause * 2, 1_000)) {
    try {
      await store.db.send(new TransactWriteCommand({ TransactItems: items }));
      return undefined;
    } catch (error) {
      if ((error as Error).name === 'TransactionCanceledException') {
        return ((error as { CancellationReasons?: { Code?: string }[] }).CancellationReasons ?? []).map((reason) => reason.Code ?? 'None');
      }
      if (!isDependencyUnavailable(error) || Date.now() + pause > deadline) throw error;
      logger.warn('Send transaction unanswered; trying it again', { error: error as Error });
      await new Promise((resolve) => setTimeout(resolve, pause));
    }
  }
}

/**
 * Another request holds this Idempotency-Key. Same request, finished: replay its result.
 * Same request, still running: 409. Different request: 409. Record gone (the other request
 * failed and released it): undefined, so the caller tries again.
 */
async function resolveIdempotencyClash(command: SendTemplateMessage, store: Store, now: Date): Promise<SendResult | undefined> {
  const { key, fingerprint } = command.idempotency!;
  const record = await getIdempotencyRecord(command.workspaceId, key, store);
  if (!record) return undefined;
  if (record.fingerprint !== fingerprint) {
    throw new ConflictError('idempotency_conflict', 'This Idempotency-Key was already used with a different request body');
  }
  const stale = now.getTime() - Date.parse(record.createdAt) > IN_FLIGHT_WINDOW_MS;
  if (record.state === 'in_flight' && !stale) {
    throw new ConflictError('idempotency_conflict', 'A request with this Idempotency-Key is still being processed; retry shortly');
  }
  return { ...record.response, replayed: true };
}

function conversationMessageItem(dispatch: Dispatch) {
  return {
    ...keys.conversationMessage(dispatch.workspaceId, dispatch.conversationId, dispatch.createdAt, dispatch.dispatchId),
    entity: 'conversationMessage',
    conversationId: dispatch.conversationId,
    messageId: dispatch.dispatchId,
    direction: 'outbound',
    type: 'template',
    text: dispatch.renderedText,
    dispatchId: dispatch.dispatchId,
    templateId: dispatch.templateId,
    createdAt: dispatch.createdAt,
  };
}

/** Creates the conversation on its first message, and moves it to the top of the list on every one. */
function conversationUpdate(dispatch: Dispatch, tableName: string) {
  const { workspaceId, conversationId, createdAt } = dispatch;
  return {
    TableName: tableName,
    Key: keys.conversation(workspaceId, conversationId),
    UpdateExpression: [
      'SET entity = :entity, id = :id, workspaceId = :ws, channel = :channel, contactPhone = :phone,',
      // The latest name a sender gave wins; a send without one leaves the name as it was.
      dispatch.contactName ? 'contactName = :name,' : '',
      'createdAt = if_not_exists(createdAt, :at),',
      'lastMessageAt = :at, lastMessagePreview = :preview, lastMessageDirection = :direction, updatedAt = :at,',
      'gsi1pk = :gsi1pk, gsi1sk = :gsi1sk',
      'ADD messageCount :one, outboundCount :one',
    ]
      .filter(Boolean)
      .join(' '),
    ExpressionAttributeValues: {
      ':entity': 'conversation',
      ':id': conversationId,
      ':ws': workspaceId,
      ':channel': dispatch.channel,
      ':phone': dispatch.to,
      ...(dispatch.contactName ? { ':name': dispatch.contactName } : {}),
      ':at': createdAt,
      ':preview': dispatch.renderedText.slice(0, PREVIEW_LENGTH),
      ':direction': 'outbound',
      ':gsi1pk': indexKeys.conversationActivity(workspaceId, createdAt, conversationId).gsi1pk,
      ':gsi1sk': indexKeys.conversationActivity(workspaceId, createdAt, conversationId).gsi1sk,
      ':one': 1,
    },
  };
}
