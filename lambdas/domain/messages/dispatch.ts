import * as z from 'zod';
import { instant } from '../time/instant';

/** Dispatch statuses and their transitions: docs/api.md#dispatch-statuses. */
export const dispatchStatuses = ['queued', 'processing', 'sent', 'delivered', 'failed', 'canceled', 'unknown'] as const;
export type DispatchStatus = (typeof dispatchStatuses)[number];

export type Channel = 'whatsapp' | 'instagram';

/** A queued or sent message, as stored. */
export interface Dispatch {
  dispatchId: string;
  workspaceId: string;
  channel: 'whatsapp';
  /** E.164. */
  to: string;
  contactName: string | null;
  templateId: string;
  templateName: string;
  templateVersionId: string;
  /** What the WhatsApp Cloud API needs to send it. */
  providerTemplateName: string;
  language: string;
  variables: Record<string, string>;
  renderedText: string;
  /** The variable values in placeholder order, as the provider takes them. */
  bodyParameters: string[];
  tagIds: string[];
  trackingTags: string[];
  source: 'EXTERNAL_API' | 'BROADCAST' | 'INBOX';
  apiClient: { id: string; name: string } | null;
  status: DispatchStatus;
  /** Fixed at send time (docs/api.md#send-a-message). */
  creditCost: number;
  amountRupiah: number;
  conversationId: string;
  createdAt: string;
  updatedAt: string;
  sentAt: string | null;
  deliveredAt: string | null;
  failureCode: string | null;
  /** Delivery bookkeeping; absent until first set (a stored null would satisfy attribute_exists). */
  attempts?: number;
  /** Set while a provider call may be under way: a dispatch with it is never sent again. */
  attemptStartedAt?: string;
  providerMessageId?: string;
  /** When the dispatch first counted as sent, and its report items were written. */
  reportedAt?: string;
}

/** The body of GET /v1/messages/{dispatchId} (docs/api.md#message-status). */
export const messageStatusSchema = z.object({
  dispatchId: z.guid(),
  status: z.enum(dispatchStatuses),
  channel: z.literal('whatsapp'),
  /** E.164. */
  to: z.string(),
  templateId: z.guid(),
  trackingTags: z.array(z.string()),
  createdAt: instant(),
  updatedAt: instant(),
  sentAt: instant().nullable(),
  deliveredAt: instant().nullable(),
  failureCode: z.string().nullable(),
});
export type MessageStatusResource = z.output<typeof messageStatusSchema>;

export function toMessageStatusResource(dispatch: Dispatch): MessageStatusResource {
  return {
    dispatchId: dispatch.dispatchId,
    status: dispatch.status,
    channel: dispatch.channel,
    to: dispatch.to,
    templateId: dispatch.templateId,
    trackingTags: dispatch.trackingTags,
    createdAt: dispatch.createdAt,
    updatedAt: dispatch.updatedAt,
    sentAt: dispatch.sentAt,
    deliveredAt: dispatch.deliveredAt,
    failureCode: dispatch.failureCode,
  };
}
