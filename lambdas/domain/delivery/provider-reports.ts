import { defaultStore } from '../../shared/default-store';
import { logger } from '../../shared/logger';
import { webhookMetrics } from '../../shared/metrics';
import type { Store } from '../../shared/store';
import { customerNumber, recordInboundMessage, recordReaction } from '../conversations/inbound-message';
import { isStopPromotionsReply } from '../workspaces/marketing-opt-out';
import type { Dispatch } from '../messages/dispatch';
import { getDispatchById, samePricing, type StatusMove } from '../messages/dispatch-repository';
import {
  readAccountUpdate,
  readContact,
  readMessage,
  readMessagesChange,
  readNumberError,
  readNumberQualityUpdate,
  readPreference,
  readPreferencesChange,
  readStatus,
  type AccountUpdate,
  type MessagesChange,
  type NumberError,
  type NumberQualityUpdate,
  type PreferencesChange,
  type ProviderStatus,
  type Sender,
  type SkipReason,
  type WebhookEnvelope,
} from '../providers/whatsapp-webhook';
import { applyMarketingPreference, carryMarketingOptOut, optOutFromFailure, optOutFromReply } from '../workspaces/marketing-opt-out-changes';
import { applyTemplateWebhook } from '../templates/template-webhook';
import { currentNumberOwner, lookUpNumberOwner } from '../workspaces/number-owner-lookup';
import { sendingNumberOf } from '../workspaces/workspace-number';
import { lookUpWorkspace } from '../workspaces/workspace-lookup';
import { workspaceOfBusinessAccount } from '../workspaces/workspace-binding';
import { applyPricing, applyReadReceipt, applyReportedTime, applyStatus } from './dispatch-status';
import { findProviderMessage } from './provider-message';
import { noteReport } from './report-evidence';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** A provider status as a dispatch move (docs/api.md#dispatch-statuses); `read` implies delivered. */
export function statusChangeOf(status: ProviderStatus): StatusMove {
  const { occurredAt, providerMessageId } = status;
  switch (status.status) {
    case 'sent':
      return { to: 'sent', occurredAt, providerMessageId };
    case 'delivered':
    case 'read':
      return { to: 'delivered', occurredAt, providerMessageId, event: 'DELIVERED' };
    case 'failed':
      // The wamid too: a dispatch whose send answer was lost learns it here, so Meta's retry of the POST finds the failure recorded (its 131050 opt-out too).
      return { to: 'failed', occurredAt, providerMessageId, ...(status.failureCode ? { failureCode: status.failureCode } : {}), event: 'REJECTED' };
  }
}

export interface ReportSummary {
  statuses: number;
  applied: number;
  inbound: number;
  reactions: number;
  /** Customers' marketing preferences that changed an opt-out. */
  preferences: number;
  skipped: number;
}

/**
 * Applies a (verified) WhatsApp webhook, item by item: each status moves its dispatch if
 * docs/api.md#dispatch-statuses allows it, each customer message lands in its conversation, each
 * reaction on its message. Replays and out-of-order reports change nothing. An item we cannot
 * read, or that names nothing of ours, is skipped (a WARN line and the WebhookItemsSkipped metric)
 * and the rest of the batch still applies: Meta retries a whole POST for days on any answer but
 * 200. Only a failure of our own (the table unreachable) stops it, so that Meta retries it.
 */
export async function applyProviderReports(envelope: WebhookEnvelope, store: Store = defaultStore(), receivedAt: Date = new Date()): Promise<ReportSummary> {
  const summary: ReportSummary = { statuses: 0, applied: 0, inbound: 0, reactions: 0, preferences: 0, skipped: 0 };
  const skip = (reason: SkipReason, context: Record<string, unknown>) => {
    summary.skipped += 1;
    webhookMetrics.skipped(reason);
    logger.warn('Webhook item skipped', { reason, ...context });
  };
  for (const entry of envelope.entry) {
    for (const { field, value } of entry.changes) {
      switch (field) {
        case 'messages': {
          const change = readMessagesChange(value);
          if (change.ok) await applyMessagesChange(change.value, summary, skip, store, receivedAt);
          else skip(change.reason, { field, detail: change.detail });
          break;
        }
        case 'user_preferences': {
          const change = readPreferencesChange(value);
          if (change.ok) await applyPreferencesChange(change.value, summary, skip, store);
          else skip(change.reason, { field, detail: change.detail });
          break;
        }
        case 'account_update': {
          const update = readAccountUpdate(value);
          if (update.ok) await noteAccountUpdate(entry.id, update.value, store);
          else skip(update.reason, { field, detail: update.detail });
          break;
        }
        case 'phone_number_quality_update': {
          const update = readNumberQualityUpdate(value);
          if (update.ok) await noteNumberQualityUpdate(entry.id, update.value, store);
          else skip(update.reason, { field, detail: update.detail });
          break;
        }
        // Template changes name the WhatsApp Business Account (entry.id), not a number.
        case 'message_template_status_update':
        case 'template_category_update':
        case 'message_template_components_update': {
          if (entry.id) await applyTemplateWebhook(entry.id, { field, value, time: entry.time }, store);
          else skip('unknown_field', { field, detail: 'no business account id (entry.id)' });
          break;
        }
        // A field this app does not read (Meta may subscribe it to more): skipped, never refused.
        default:
          skip('unknown_field', { field });
      }
    }
  }
  return summary;
}

type Skip = (reason: SkipReason, context: Record<string, unknown>) => void;

/**
 * One `messages` change: for the workspace that owns the business number it came to, and no other.
 * A customer's message goes to the number's owner as the table has it now; statuses alone take the
 * owner the container read lately, and a status of another workspace's dispatch reads it again
 * before it is skipped (decision 122). On a number no workspace owns, statuses apply only to the
 * dispatches of workspaces that send from the stack's default number (decision 171).
 */
async function applyMessagesChange(change: MessagesChange, summary: ReportSummary, skip: Skip, store: Store, receivedAt: Date): Promise<void> {
  const { phoneNumberId } = change;
  const now = new Date();
  const workspaceId = await (change.messages.length ? currentNumberOwner : lookUpNumberOwner)(phoneNumberId, now, store);
  for (const raw of change.errors) noteNumberError(phoneNumberId, workspaceId, readNumberError(raw));

  // On a number no workspace owns (the stack's default one) statuses still tell of the dispatches
  // sent from it (decision 171); a customer's message to it belongs to no conversation.
  for (const raw of change.statuses) {
    summary.statuses += 1;
    const status = readStatus(raw);
    if (!status.ok) {
      skip(status.reason, { phoneNumberId, detail: status.detail });
      continue;
    }
    const outcome = await applyStatusReport(workspaceId, phoneNumberId, status.value, store);
    if (outcome === 'applied') summary.applied += 1;
    else if (outcome !== 'unchanged') skip(outcome, { phoneNumberId, providerMessageId: status.value.providerMessageId });
  }

  if (!workspaceId) {
    for (let i = 0; i < change.messages.length; i++) skip('unowned_number', { phoneNumberId });
    return;
  }
  const senders = change.contacts.flatMap((raw) => {
    const contact = readContact(raw);
    if (contact.ok) return [contact.value];
    skip(contact.reason, { phoneNumberId, detail: contact.detail });
    return [];
  });
  for (const raw of change.messages) {
    const message = readMessage(raw);
    if (!message.ok) {
      skip(message.reason, { phoneNumberId, detail: message.detail });
      continue;
    }
    const { content, providerMessageId, occurredAt } = message.value;
    if (content.kind === 'reaction') {
      const outcome = await recordReaction({ workspaceId, reactsTo: content.reactsTo, emoji: content.emoji, occurredAt }, store);
      if (outcome === 'applied') summary.reactions += 1;
      else if (outcome === 'unknown_message_id') skip(outcome, { phoneNumberId, providerMessageId });
      continue;
    }
    const sender = senderOf(message.value.from, senders);
    const stored = await recordInboundMessage({ workspaceId, from: sender, contactName: sender.name, providerMessageId, occurredAt, receivedAt: receivedAt.toISOString(), content }, store);
    if (stored) summary.inbound += 1;
    // A "Stop promotions" tap. Sends go to numbers: a customer named by user id alone opts out the
    // number an earlier message gave with it (decision 222), if one did.
    if (content.kind === 'message' && isStopPromotionsReply(content)) {
      const phone = await customerNumber({ workspaceId, from: sender, content }, store);
      if (phone) await optOutFromReply({ workspaceId, phone, type: content.type, text: content.text, payload: content.payload, occurredAt, providerMessageId }, store);
    }
    // A number change: an opt-out made on the old number follows the customer, who may be named by
    // BSUID alone (decision 226). Also on a repeated notice (not stored again), which may be Meta's
    // retry of one whose carry failed.
    if (content.kind === 'notice' && content.newPhone) {
      const from = await customerNumber({ workspaceId, from: sender, content }, store);
      if (from) await carryMarketingOptOut({ workspaceId, from, to: content.newPhone, movedAt: occurredAt }, store);
    }
  }
}

/** One `user_preferences` change: customers stopping or resuming the marketing messages of the number's owner. */
async function applyPreferencesChange(change: PreferencesChange, summary: ReportSummary, skip: Skip, store: Store): Promise<void> {
  const { phoneNumberId } = change;
  const workspaceId = await currentNumberOwner(phoneNumberId, new Date(), store);
  if (!workspaceId) {
    for (let i = 0; i < change.preferences.length; i++) skip('unowned_number', { phoneNumberId });
    return;
  }
  for (const raw of change.preferences) {
    const preference = readPreference(raw);
    if (!preference.ok) skip(preference.reason, { phoneNumberId, detail: preference.detail });
    else if (await applyMarketingPreference({ workspaceId, ...preference.value }, store)) summary.preferences += 1;
  }
}

/**
 * WhatsApp's word on a business account, for the operators (decision 142): nothing here changes,
 * but one that restricts, disables or finds a violation on the account is a WARN line and the
 * `WhatsAppAccountRestricted` metric, which pages; any other is an INFO line. Each names the
 * workspace bound to the account, when one is.
 */
async function noteAccountUpdate(businessAccountId: string | undefined, update: AccountUpdate, store: Store): Promise<void> {
  const workspaceId = businessAccountId ? await workspaceOfBusinessAccount(businessAccountId, store) : undefined;
  const line = { businessAccountId: businessAccountId ?? null, workspaceId: workspaceId ?? null, ...update };
  if (update.restricting) {
    webhookMetrics.accountRestricted();
    logger.warn('WhatsApp restricted the business account', line);
  } else {
    logger.info('WhatsApp account update', line);
  }
}

/**
 * WhatsApp's word on a number's throughput and its portfolio's messaging limit, for the operators
 * (decision 150): nothing here changes. A raised throughput is a WARN line that says to raise the
 * number's pace (the consumer keeps it to `whatsappMessagesPerSecond` whatever WhatsApp allows); a
 * lowered limit or a flagged number is a WARN line; any other update an INFO line. Each names the
 * workspace bound to the business account, when one is.
 */
async function noteNumberQualityUpdate(businessAccountId: string | undefined, update: NumberQualityUpdate, store: Store): Promise<void> {
  const workspaceId = businessAccountId ? await workspaceOfBusinessAccount(businessAccountId, store) : undefined;
  const { action, ...said } = update;
  const line = { businessAccountId: businessAccountId ?? null, workspaceId: workspaceId ?? null, ...said };
  if (action === 'throughput_raised') logger.warn('WhatsApp raised the number’s throughput; raise its whatsappMessagesPerSecond to send faster', line);
  else if (action === 'limit_lowered') logger.warn('WhatsApp lowered the number’s messaging limit or flagged its quality', line);
  else logger.info('WhatsApp number quality update', line);
}

/**
 * An error WhatsApp reports on a number outside any message (a rate limit hit, a problem with the
 * app or the account): nothing of ours changes, and no dispatch names it, so it is a WARN line and
 * the `WhatsAppNumberErrors` metric for the operators, owned number or not (decision 149).
 */
function noteNumberError(phoneNumberId: string, workspaceId: string | undefined, error: NumberError): void {
  webhookMetrics.numberError();
  logger.warn('WhatsApp reported an error on the number', { phoneNumberId, workspaceId: workspaceId ?? null, ...error });
}

/**
 * The message's sender, completed from the change's contacts (its name, and the identifier the
 * message left out). Meta warns that a user's number (`from`) and WhatsApp id (`wa_id`) may not
 * match: a change's only contact is still its sender, whose profile name is taken, though not its
 * identifiers, which the message's own stand for.
 */
function senderOf(from: { phone: string | null; userId: string | null }, contacts: Sender[]): Sender {
  const contact = contacts.find((candidate) => (from.phone && candidate.phone === from.phone) || (from.userId && candidate.userId === from.userId));
  if (!contact && contacts.length === 1) return { phone: from.phone, userId: from.userId, name: contacts[0]!.name };
  return { phone: from.phone ?? contact?.phone ?? null, userId: from.userId ?? contact?.userId ?? null, name: contact?.name ?? null };
}

/**
 * One status: found by the dispatch id it echoes (or by its wamid, `dispatchOf`), applied only to
 * a dispatch sent from the number it comes on (`sentFromNumber`). A `read` is kept as `readAt`
 * (after the delivered it implies), and Meta's pricing on the dispatch.
 */
async function applyStatusReport(workspaceId: string | undefined, phoneNumberId: string, status: ProviderStatus, store: Store): Promise<'applied' | 'unchanged' | SkipReason> {
  const dispatch = await dispatchOf(status, store);
  if (!dispatch) return workspaceId ? 'unknown_message_id' : 'unowned_number';
  if (!(await sentFromNumber(dispatch, workspaceId, phoneNumberId, store))) return workspaceId ? 'foreign_dispatch' : 'unowned_number';
  // Reports are flowing for what the number sent up to then: the reconciler's evidence for dead claims
  // (none is kept for the stack's default number, which the reconciler does not judge by).
  if (workspaceId && dispatch.sentAt) await noteReport(phoneNumberId, dispatch.sentAt, store);
  // Meta repeats a message's pricing on each of its statuses: it rides on the status move when there is one, and is written only when it changed.
  const pricing = status.pricing && !samePricing(status.pricing, dispatch.pricing) ? status.pricing : undefined;
  // WhatsApp reports on the number that sent the message: a status that overtook our own `sent`
  // write teaches the dispatch its number, as that write would have (decision 178).
  const sender = dispatch.senderPhoneNumberId ? {} : { senderPhoneNumberId: phoneNumberId };
  const moved = await applyStatus(dispatch.dispatchId, { ...statusChangeOf(status), ...(pricing ? { pricing } : {}), ...sender }, store, dispatch);
  // What WhatsApp said of a failure beyond its code is kept for the operators, not on the dispatch.
  if (moved && status.failureCode) logger.info('WhatsApp reported the message failed', { dispatchId: dispatch.dispatchId, workspaceId: dispatch.workspaceId, code: status.failureCode, ...status.failureDetail });
  // As the failure is recorded, and again on a replay of it: the opt-out is a write of its own, and
  // a POST retried because it failed finds the dispatch failed already. A replay older than a resume
  // records nothing (decision 151), and a number opted out keeps its record.
  if (status.failureCode && (moved || isRecordedFailure(dispatch, status))) {
    await optOutFromFailure({ workspaceId: dispatch.workspaceId, phone: dispatch.to, failureCode: status.failureCode, occurredAt: status.occurredAt, providerMessageId: status.providerMessageId }, store);
  }
  const read = status.status === 'read' && (await applyReadReceipt(dispatch.dispatchId, status.occurredAt, store, dispatch));
  // A `delivered` after the `read`, or a `sent` after the `delivered` or `read`, that moved the
  // dispatch at its own time says when it happened (decisions 200, 236).
  const redated = !moved && (status.status === 'delivered' || status.status === 'sent') && (await applyReportedTime(dispatch.dispatchId, status.status, status.occurredAt, store, dispatch));
  if (pricing && !moved && pricedAlone(status)) await applyPricing(dispatch.dispatchId, pricing, status.occurredAt, store, dispatch);
  return moved || read || redated ? 'applied' : 'unchanged';
}

/**
 * Whether the dispatch was sent from the number a status comes on. A dispatch keeps that number
 * from its claim (decisions 181, 219: the stack's default number too) or the provider's answer
 * (decision 178), so its statuses apply after the number is bound to a workspace or moved to
 * another, or the workspace names another. One that does not know it (claimed before the number
 * was kept, or with no default number configured; a status then records it) is judged by the
 * number's owner: its own workspace, or the owner of a moment ago, for statuses a rebinding
 * overtook (decision 52); on a number no workspace owns, a workspace that sends from the stack's
 * default number today (decision 171).
 */
async function sentFromNumber(dispatch: Dispatch, owner: string | undefined, phoneNumberId: string, store: Store): Promise<boolean> {
  if (dispatch.senderPhoneNumberId) return dispatch.senderPhoneNumberId === phoneNumberId;
  if (!owner) return sendsFromDefaultNumber(dispatch.workspaceId, store);
  return dispatch.workspaceId === owner || dispatch.workspaceId === (await currentNumberOwner(phoneNumberId, new Date(), store));
}

/**
 * Whether a workspace sends from the stack's default number (the secret's `phoneNumberId`): a
 * WhatsApp workspace without a number of its own (`sendingNumberOf`). Only its dispatches take
 * statuses that come to a number no workspace owns.
 */
async function sendsFromDefaultNumber(workspaceId: string, store: Store): Promise<boolean> {
  const workspace = await lookUpWorkspace(workspaceId, new Date(), store);
  return workspace.settings.provider === 'whatsapp' && sendingNumberOf(workspace) === undefined;
}

/** The dispatch was failed by this very report before (Meta's retry of a POST that failed after the move). */
const isRecordedFailure = (dispatch: Dispatch, status: ProviderStatus) => dispatch.status === 'failed' && dispatch.failureCode === status.failureCode && dispatch.providerMessageId === status.providerMessageId;

/**
 * Whether a status that moves nothing writes its pricing on its own. Not a `sent` one: Meta prices
 * a charged message on its delivered or read report at least, and a delivered move takes the pricing
 * with it for nothing, where a write of its own would cost a write unit and a `message.status.updated`
 * event a message (decision 121).
 */
const pricedAlone = (status: ProviderStatus) => status.status !== 'sent';

/**
 * Meta echoes the dispatch id every send carries (decision 19), so a status finds its dispatch with
 * one read. The wamid names it for a status without one (a message sent by another system on the
 * number, or a payload that left it out), and for an echoed id that names no dispatch of ours.
 */
async function dispatchOf(status: ProviderStatus, store: Store): Promise<Dispatch | undefined> {
  const echoed = status.callbackData && UUID.test(status.callbackData) ? await getDispatchById(status.callbackData, store) : undefined;
  if (echoed) return echoed;
  const ref = await findProviderMessage(status.providerMessageId, store);
  return ref?.kind === 'dispatch' ? getDispatchById(ref.dispatchId, store) : undefined;
}
