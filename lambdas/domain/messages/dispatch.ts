import { rupiah } from '../../shared/rupiah';
import { randomUUID } from 'node:crypto';
import * as z from '../../shared/zod';
import { conversationIdFor } from '../conversations/conversation-id';
import type { Pricing } from '../providers/whatsapp-webhook';
import type { Template, TemplateVersion } from '../templates/template';
import type { TemplateParameters } from '../templates/template-parameters';
import { bodyParameters, renderBody, templateParameters } from '../templates/render';
import { instant } from '../time/instant';
import type { Workspace } from '../workspaces/workspace';

/** Marks dispatch items in the table; the webhook publisher's stream filter matches on it (decision 89). */
export const DISPATCH_ENTITY = 'dispatch';

/**
 * What a dispatch item's last write made beside its own change (`dispatch-repository.sequenceStep`),
 * for the table's stream readers to write: the delivery events (decision 112), whether it made
 * the dispatch count as sent (1) or stop counting (−1) in the reports (decision 113), and whether
 * it is a status's move that first recorded the dispatch's wamid, whose item then names the
 * dispatch (decision 114; the deliver consumer puts the item of the wamid it was answered with, decision 196),
 * and the time the event a correction of its time moved was at, one attribute per event that may
 * move: DELIVERED with `deliveredAt` (decision 200), ACCEPTED with `sentAt` (decision 236).
 */
export const DELIVERY_EVENTS_MADE = 'deliveryEvents';
export const REPORTS_CHANGE_MADE = 'reportsChange';
export const WAMID_MADE = 'wamidMade';
export const EVENT_MOVED = { ACCEPTED: 'acceptedEventMovedFrom', DELIVERED: 'deliveredEventMovedFrom' } as const;
export type MovableEvent = keyof typeof EVENT_MOVED;

/** Dispatch statuses and their transitions: docs/api.md#dispatch-statuses. */
export const dispatchStatuses = ['queued', 'processing', 'sent', 'delivered', 'failed', 'canceled', 'unknown'] as const;
export type DispatchStatus = (typeof dispatchStatuses)[number];

export type Channel = 'whatsapp' | 'instagram';

/**
 * A queued or sent message, as stored and read back: what its status, the reports and its sending
 * read, and nothing else (decision 92). What only the send needs is written where it is read (the
 * rendered text in the conversation message, the contact's name on the conversation).
 */
export interface Dispatch {
  dispatchId: string;
  workspaceId: string;
  channel: 'whatsapp';
  /** E.164. */
  to: string;
  templateId: string;
  templateName: string;
  /** What the WhatsApp Cloud API needs to send it. */
  providerTemplateName: string;
  language: string;
  /** The variable values in placeholder order, as the provider takes them. */
  bodyParameters: string[];
  /** Header, button and named-body parameters, for templates synced from WhatsApp that have them. */
  templateParameters?: TemplateParameters;
  tagIds: string[];
  trackingTags: string[];
  source: 'EXTERNAL_API' | 'BROADCAST' | 'INBOX';
  apiClient: { id: string; name: string } | null;
  status: DispatchStatus;
  /** Fixed at send time (docs/api.md#send-a-message). */
  creditCost: number;
  amountRupiah: number;
  createdAt: string;
  updatedAt: string;
  sentAt: string | null;
  /**
   * `sentAt` is the time of the `delivered` (or `read`) that reached us before any `sent` and first
   * counted the dispatch as sent: only then does a `sent` after it move `sentAt` back, once, which
   * removes this (decision 236). Absent otherwise, and on dispatches stored before it was kept.
   */
  sentAtFromDelivery?: true;
  deliveredAt: string | null;
  /** When the recipient read it (WhatsApp's `read` status); its status stays `delivered`. */
  readAt: string | null;
  /** Meta's pricing of the message, from its status webhooks. */
  pricing: Pricing | null;
  failureCode: string | null;
  /**
   * Counts the versions of its GET body: 1 when sent, one more with every change of that body, so a
   * webhook receiver can drop an event older than one it has (docs/api.md#message-status).
   */
  sequence: number;
  /** Delivery bookkeeping; absent until first set (a stored null would satisfy attribute_exists). */
  attempts?: number;
  /**
   * How often the provider answered "later" (rate limited, a fault on its side): the retry budget
   * counts these, not the queue's receives, which a killed consumer or an absent table also spends.
   */
  laterAnswers?: number;
  /**
   * How many of `laterAnswers` said the provider is down (decision 228): those spend a budget of
   * their own, half an hour, and the others their five (decision 231). Absent: none, as on a
   * dispatch stored before it was kept.
   */
  outageAnswers?: number;
  /** Set while a provider call may be under way: a dispatch with it is never sent again. */
  attemptStartedAt?: string;
  /**
   * An `unknown` whose attempt was given back to be sent again (decision 227): when it was given back
   * or last queued, the reconciler's clock for queuing it (its `updatedAt` is the GET body's, which
   * these moves leave as it was). Only such a dispatch, while it keeps its pending entry, is claimed
   * `unknown`. Absent otherwise.
   */
  givenBackAt?: string;
  providerMessageId?: string;
  /**
   * The WhatsApp number the provider took it on: statuses on that number apply to it, whoever owns
   * the number now (decision 178). Absent before it was sent, and on dispatches sent before it was kept.
   */
  senderPhoneNumberId?: string;
  /** When it failed, at the provider (or now): its REJECTED event's time. Absent until then. */
  failedAt?: string;
  /**
   * When the status that brought the kept `pricing` happened: a status Meta delivers again days
   * later, older than it, does not replace it. Absent until priced, and on pricing kept before it.
   */
  pricedAt?: string;
  /**
   * A MARKETING template's message: the number's opt-out is read again when it is delivered, since
   * it may have waited on the queue past a "Stop promotions" (decision 207). Absent otherwise, and
   * on dispatches stored before it was kept.
   */
  marketing?: true;
}

/** An `unknown` the reconciler gave back to be sent again (decision 227): no attempt, and its `givenBackAt` (the claim of its retry removes it). */
export const isGivenBack = (dispatch: Pick<Dispatch, 'status' | 'attemptStartedAt' | 'givenBackAt'>): dispatch is Dispatch & { givenBackAt: string } =>
  dispatch.status === 'unknown' && dispatch.attemptStartedAt === undefined && dispatch.givenBackAt !== undefined;

/** The conversation a dispatch belongs to: the number's in its workspace, derived, not stored (decision 92). */
export const conversationOfDispatch = (dispatch: Pick<Dispatch, 'workspaceId' | 'channel' | 'to'>): string => conversationIdFor(dispatch.workspaceId, dispatch.channel, dispatch.to);

/**
 * The most UTF-8 a template may render a send's values to. The values in their placeholders' order
 * go on the dispatch (the body's, and a carousel's cards'), and the rendered text into its
 * conversation, each in one DynamoDB item (400 KB): a body or card that repeats a placeholder
 * repeats its value, so the variables' own limit (120 KB) does not bound them.
 */
export const MAX_RENDERED_BYTES = 120_000;

/** What a send's values make of a version: the body's text, and what WhatsApp takes beside the body's values. */
export interface RenderedSend {
  text: string;
  parameters: TemplateParameters;
}

export const renderSend = (version: TemplateVersion, values: ReadonlyMap<string, string>): RenderedSend => ({ text: renderBody(version.body, values), parameters: templateParameters(version, values) });

/** The UTF-8 the rendering takes: the text (the conversation's message; the body's values on the dispatch are as many) and the parameters beside it. */
export const renderedBytes = ({ text, parameters }: RenderedSend): number =>
  Buffer.byteLength(text, 'utf8') + (Object.keys(parameters).length ? Buffer.byteLength(JSON.stringify(parameters), 'utf8') : 0);

/** A new dispatch, with what its send writes beside it: the conversation message's text, the conversation's contact name. */
export interface DraftedDispatch extends Dispatch {
  renderedText: string;
  contactName: string | null;
}

/** A send request as a dispatch is drafted from it: validated, its number normalized. */
export interface DispatchRequest {
  workspaceId: string;
  apiClient: { id: string; name: string };
  /** E.164. */
  to: string;
  contactName?: string;
  variables: Record<string, string>;
  tagIds: string[];
  trackingTags: string[];
  now: Date;
}

/**
 * A new `queued` dispatch of `version` of `template`: its text rendered, its tags without
 * duplicates, its price fixed at the workspace's rate of today.
 */
export function draftDispatch(
  request: DispatchRequest,
  template: Template,
  version: TemplateVersion,
  workspace: Pick<Workspace, 'rupiahPerCredit'>,
  // The send renders it first, to check its size: given, it is not rendered again.
  { text: renderedText, parameters }: RenderedSend = renderSend(version, new Map(Object.entries(request.variables))),
): DraftedDispatch {
  const values = new Map(Object.entries(request.variables));
  const createdAt = request.now.toISOString();
  return {
    dispatchId: randomUUID(),
    workspaceId: request.workspaceId,
    channel: 'whatsapp',
    to: request.to,
    contactName: request.contactName ?? null,
    templateId: template.id,
    templateName: template.displayName,
    providerTemplateName: template.providerName,
    language: template.language,
    renderedText,
    bodyParameters: bodyParameters(version.body, values),
    ...(Object.keys(parameters).length ? { templateParameters: parameters } : {}),
    ...(template.category === 'MARKETING' ? { marketing: true as const } : {}),
    tagIds: [...new Set(request.tagIds)],
    trackingTags: [...new Set(request.trackingTags)],
    source: 'EXTERNAL_API',
    apiClient: request.apiClient,
    status: 'queued',
    creditCost: version.creditCostPerSend,
    amountRupiah: rupiah(version.creditCostPerSend * workspace.rupiahPerCredit),
    createdAt,
    updatedAt: createdAt,
    sentAt: null,
    deliveredAt: null,
    readAt: null,
    pricing: null,
    failureCode: null,
    sequence: 1,
  };
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
  sentAt: z.nullable(instant()),
  deliveredAt: z.nullable(instant()),
  /** When the recipient read it; `status` stays `delivered` (docs/api.md#message-status). */
  readAt: z.nullable(instant()),
  /** Meta's pricing of the message as its status webhooks reported it, to reconcile with its invoice. */
  pricing: z.nullable(z.object({
    billable: z.nullable(z.boolean()),
    category: z.nullable(z.string()).register(z.globalRegistry, { description: 'As Meta sent it, e.g. marketing, utility, authentication, service; values Meta adds pass unchanged' }),
    pricingModel: z.nullable(z.string()).register(z.globalRegistry, { description: 'e.g. PMP (per-message pricing)' }),
    type: z.nullable(z.string()).register(z.globalRegistry, { description: 'Whether Meta charges the message, as Meta sent it: regular is charged; free_customer_service and free_entry_point are not; values Meta adds pass unchanged, and which messages each covers is Meta’s pricing (https://developers.facebook.com/documentation/business-messaging/whatsapp/pricing); null when Meta did not say' }),
  })),
  failureCode: z.nullable(z.string()),
  /** One more with every change of this body; the `message.status.updated` event carrying it says the same (docs/api.md#webhook-events). */
  sequence: z.int().check(z.gte(0)),
});
export type MessageStatusResource = z.output<typeof messageStatusSchema>;

/** A dispatch as far as its status body goes: what GET /v1/messages/{id} reads of it (./message-status-read.ts). */
export type DispatchStatusFields = Pick<Dispatch, keyof MessageStatusResource>;

export function toMessageStatusResource(dispatch: DispatchStatusFields): MessageStatusResource {
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
    readAt: dispatch.readAt,
    pricing: dispatch.pricing,
    failureCode: dispatch.failureCode,
    sequence: dispatch.sequence,
  };
}
