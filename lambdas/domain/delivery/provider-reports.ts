import { defaultStore } from '../../shared/default-store';
import { logger } from '../../shared/logger';
import type { Store } from '../../shared/store';
import { recordInboundMessage } from '../conversations/inbound-message';
import { applyTemplateWebhook, isTemplateWebhookField } from '../templates/template-webhook';
import type { WebhookPayload, WebhookStatus } from '../providers/whatsapp-webhook';
import { workspaceOfNumber } from '../workspaces/workspace-number';
import { applyStatus, type StatusChange } from './dispatch-status';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** A provider status as a dispatch move (docs/api.md#dispatch-statuses); `read` implies delivered. */
export function statusChangeOf(status: WebhookStatus): StatusChange {
  const occurredAt = new Date(Number(status.timestamp) * 1000).toISOString();
  switch (status.status) {
    case 'sent':
      return { to: 'sent', occurredAt, providerMessageId: status.id };
    case 'delivered':
    case 'read':
      return { to: 'delivered', occurredAt, providerMessageId: status.id, event: 'DELIVERED' };
    case 'failed':
      return { to: 'failed', occurredAt, failureCode: String(status.errors?.[0]?.code ?? 'failed'), event: 'REJECTED' };
  }
}

export interface ReportSummary {
  statuses: number;
  applied: number;
  inbound: number;
}

/**
 * Applies a (verified) WhatsApp webhook: each status moves its dispatch if docs/api.md#dispatch-statuses allows it,
 * and each inbound message lands in its conversation. Replays and out-of-order reports change
 * nothing.
 */
export async function applyProviderReports(payload: WebhookPayload, store: Store = defaultStore()): Promise<ReportSummary> {
  const summary: ReportSummary = { statuses: 0, applied: 0, inbound: 0 };
  for (const { id: entryId, changes } of payload.entry) {
    for (const { field, value } of changes) {
      // Template changes name the WhatsApp Business Account (entry.id), not a number.
      if (isTemplateWebhookField(field)) {
        if (entryId) await applyTemplateWebhook(entryId, { field, value }, store);
        continue;
      }
      for (const status of value.statuses ?? []) {
        summary.statuses += 1;
        const dispatchId = status.biz_opaque_callback_data;
        if (!dispatchId || !UUID.test(dispatchId)) {
          logger.warn('Status without a dispatch id ignored', { providerMessageId: status.id });
          continue;
        }
        if (await applyStatus(dispatchId, statusChangeOf(status), store)) summary.applied += 1;
      }
      if (value.messages?.length && value.metadata) {
        const workspaceId = await workspaceOfNumber(value.metadata.phone_number_id, store);
        if (!workspaceId) {
          logger.warn('Inbound message for a number no workspace owns', { phoneNumberId: value.metadata.phone_number_id });
          continue;
        }
        for (const message of value.messages) {
          const contactName = value.contacts?.find((contact) => contact.wa_id === message.from)?.profile?.name ?? null;
          const stored = await recordInboundMessage(
            {
              workspaceId,
              from: message.from,
              providerMessageId: message.id,
              occurredAt: new Date(Number(message.timestamp) * 1000).toISOString(),
              type: message.type,
              text: message.text?.body ?? null,
              contactName,
            },
            store,
          );
          if (stored) summary.inbound += 1;
        }
      }
    }
  }
  return summary;
}
