import { createHmac, timingSafeEqual } from 'node:crypto';
import * as z from '../../shared/zod';
import type { WebhookSkipReason } from '../../shared/metric-names';
import { issueLine } from '../../shared/zod-issues';
import { graphErrorDetails } from './whatsapp-errors';

/**
 * The WhatsApp Cloud API webhook, read the way Meta asks: the envelope is checked as a whole, and
 * every entry, change, status, message and contact is read on its own, so one item we do not
 * understand (a new status value, a new message type, a new contact shape) is skipped and never
 * costs the rest of its batch. Meta retries any answer but 200 for days; nothing here throws.
 */

/**
 * An identifier of Meta's that becomes part of a table key (a number id, a wamid, a WhatsApp or
 * user id). Bounded well above any Meta issues (a wamid is about 60 characters), so one too long
 * for a DynamoDB key is skipped as malformed, not answered with a 500.
 */
export const META_ID_MAX_LENGTH = 256;
const metaId = () => z.string().check(z.minLength(1), z.maxLength(META_ID_MAX_LENGTH));

/**
 * When the entry's changes were made: Unix seconds, as a number (template changes carry it; Meta
 * re-delivers them for days, so they may come out of order). One no date can hold reads as absent,
 * and never refuses the batch. Read by hand, not by a zod `catch`, which pulls zod's English
 * messages into every bundle that parses webhooks (graphErrorDetails says the same).
 */
const entryTime = z.pipe(
  z.unknown().register(z.globalRegistry, { type: 'integer', description: 'Unix seconds; a value that is not is read as absent.' }),
  z.transform((time) => (typeof time === 'number' && Number.isInteger(time) && time >= 0 && time <= 99_999_999_999 ? time : undefined)),
);

/** The envelope only: anything inside a change is read item by item (readStatuses, readMessages). */
export const webhookEnvelopeSchema = z.object({
  object: z.literal('whatsapp_business_account'),
  entry: z.array(
    z.object({
      id: z.optional(metaId()),
      time: z.optional(entryTime),
      changes: z.array(z.object({ field: z.string(), value: z.record(z.string(), z.unknown()) })),
    }),
  ),
});
export type WebhookEnvelope = z.infer<typeof webhookEnvelopeSchema>;

/** Why an item was skipped: a bounded set, each a metric dimension value. */
export type SkipReason = WebhookSkipReason;

export type Read<T> = { ok: true; value: T } | { ok: false; reason: SkipReason; detail: string };
const skip = (reason: SkipReason, error: z.core.$ZodError | string): { ok: false; reason: SkipReason; detail: string } => ({
  ok: false,
  reason,
  detail: typeof error === 'string' ? error : issueLine(error, '(item)'),
});

/** Unix seconds as Meta sends them, as an instant; a value no date can hold is refused, not thrown on. */
const epochSeconds = z.pipe(z.string().check(z.regex(/^\d{1,11}$/, 'not Unix seconds')), z.transform((seconds) => new Date(Number(seconds) * 1000).toISOString()));

// ---- the `messages` field: what one change holds -------------------------------------------------

const changeValueSchema = z.object({
  metadata: z.object({ phone_number_id: metaId() }),
  statuses: z.optional(z.array(z.unknown())),
  messages: z.optional(z.array(z.unknown())),
  contacts: z.optional(z.array(z.unknown())),
  errors: z.optional(z.array(z.unknown())),
});

/** A `messages` change: the business number it reached, and its items still unread. */
export type MessagesChange = { phoneNumberId: string; statuses: unknown[]; messages: unknown[]; contacts: unknown[]; errors: unknown[] };

export function readMessagesChange(value: Record<string, unknown>): Read<MessagesChange> {
  const parsed = changeValueSchema.safeParse(value);
  if (!parsed.success) return skip('malformed_change', parsed.error);
  const { metadata, statuses = [], messages = [], contacts = [], errors = [] } = parsed.data;
  return { ok: true, value: { phoneNumberId: metadata.phone_number_id, statuses, messages, contacts, errors } };
}

// ---- errors: WhatsApp's word on the number, outside any message --------------------------------------

const numberErrorSchema = z.object({
  code: z.optional(z.union([z.number(), z.string()])),
  title: z.optional(z.string()),
  message: z.optional(z.string()),
  error_data: z.optional(z.object({ details: z.optional(z.string()) })),
});

/**
 * An error a `messages` change carries beside (or instead of) its statuses: a request WhatsApp could
 * not process for a system, app or account level problem, about no message of ours (Meta's "errors"
 * messages webhook). Read for the operators; whatever its shape, it is told, never dropped.
 */
export interface NumberError {
  code: string;
  title: string | null;
  details: string | null;
}

export function readNumberError(raw: unknown): NumberError {
  const parsed = numberErrorSchema.safeParse(raw);
  if (!parsed.success) return { code: 'unreadable', title: null, details: JSON.stringify(raw).slice(0, 500) };
  const { code, title, message, error_data } = parsed.data;
  return { code: code === undefined ? 'none' : String(code), title: title ?? message ?? null, details: error_data?.details ?? null };
}

// ---- statuses -------------------------------------------------------------------------------------

export const knownStatuses = ['sent', 'delivered', 'read', 'failed'] as const;

const statusSchema = z.object({
  /** The wamid: the one identifier every status carries. */
  id: metaId(),
  status: z.enum(knownStatuses),
  timestamp: epochSeconds,
  recipient_id: z.optional(z.string()),
  recipient_user_id: z.optional(z.string()),
  /** Echoed when the message was sent with it (we send the dispatch id); not promised on every status. */
  biz_opaque_callback_data: z.optional(z.string()),
  errors: z.optional(
    z.array(
      z.object({
        code: z.union([z.number(), z.string()]),
        // Words for the operators, read when they are text: a null is never a reason to skip the status.
        title: z.optional(z.unknown()),
        message: z.optional(z.unknown()),
        // What was wrong, for the operators (graphErrorDetails): never a reason to skip the status.
        error_data: z.optional(z.unknown()),
      }),
    ),
  ),
  /** Meta's billing verdict (per-message pricing); carried on sent, delivered and read. */
  pricing: z.optional(z.object({ billable: z.optional(z.boolean()), category: z.optional(z.string()), pricing_model: z.optional(z.string()), type: z.optional(z.string()) })),
});

/** A delivery status of one of our messages, read. */
export interface ProviderStatus {
  providerMessageId: string;
  status: (typeof knownStatuses)[number];
  occurredAt: string;
  callbackData: string | undefined;
  failureCode: string | undefined;
  /** A failure's title and details as WhatsApp gave them, for the operators' log line only. */
  failureDetail: { title: string | null; details: string | null } | undefined;
  pricing: Pricing | undefined;
}

/** Meta's pricing of one message, kept on the dispatch to reconcile against its invoice. */
export interface Pricing {
  /** Deprecated by Meta with per-message pricing: `type` says whether the message is charged. */
  billable: boolean | null;
  category: string | null;
  pricingModel: string | null;
  /**
   * `regular` (charged), `free_customer_service`, `free_entry_point` or a value Meta adds, kept as
   * sent: which messages each covers is Meta's pricing to define, and it changes (decision 152).
   */
  type: string | null;
}

export function readStatus(raw: unknown): Read<ProviderStatus> {
  const parsed = statusSchema.safeParse(raw);
  if (!parsed.success) {
    const unknownValue = parsed.error.issues.some((issue) => issue.path.join('.') === 'status' && issue.code === 'invalid_value');
    return skip(unknownValue ? 'unknown_status' : 'malformed_status', parsed.error);
  }
  const status = parsed.data;
  return {
    ok: true,
    value: {
      providerMessageId: status.id,
      status: status.status,
      occurredAt: status.timestamp,
      callbackData: status.biz_opaque_callback_data,
      // Without an error Meta gave no code, and none is made up (docs/api.md: a code "when the provider gave one").
      failureCode: status.status === 'failed' && status.errors?.[0] ? String(status.errors[0].code) : undefined,
      failureDetail:
        status.status === 'failed' && status.errors?.[0]
          ? { title: textOf(status.errors[0].title) ?? textOf(status.errors[0].message) ?? null, details: graphErrorDetails(status.errors[0].error_data) ?? null }
          : undefined,
      pricing: status.pricing && {
        billable: status.pricing.billable ?? null,
        category: status.pricing.category ?? null,
        pricingModel: status.pricing.pricing_model ?? null,
        type: status.pricing.type ?? null,
      },
    },
  };
}

// ---- contacts -------------------------------------------------------------------------------------

const contactSchema = z.object({
    wa_id: z.optional(metaId()),
    /** A business-scoped user id (BSUID): the only identifier of a user who hides their number. */
    user_id: z.optional(metaId()),
    profile: z.optional(z.object({ name: z.optional(z.string()), username: z.optional(z.string()) })),
  }).check(z.refine((contact) => contact.wa_id || contact.user_id, 'neither wa_id nor user_id'));

/** Who wrote: a phone (WhatsApp id, digits), a business-scoped user id, or both; and their profile name. */
export interface Sender {
  phone: string | null;
  userId: string | null;
  name: string | null;
}

export function readContact(raw: unknown): Read<Sender> {
  const parsed = contactSchema.safeParse(raw);
  if (!parsed.success) return skip('malformed_contact', parsed.error);
  const { wa_id, user_id, profile } = parsed.data;
  return { ok: true, value: { phone: wa_id ?? null, userId: user_id ?? null, name: profile?.name ?? profile?.username ?? null } };
}

// ---- messages -------------------------------------------------------------------------------------

const messageBase = z.object({
    id: metaId(),
    timestamp: epochSeconds,
    type: z.string(),
    from: z.optional(metaId()),
    from_user_id: z.optional(metaId()),
    /** Set on a message written in a WhatsApp group the number belongs to; `from` is the participant. */
    group_id: z.optional(z.string()),
  }).check(z.refine((message) => message.from || message.from_user_id, 'neither from nor from_user_id'));

const media = z.object({ id: z.string().check(z.minLength(1)), mime_type: z.string(), caption: z.optional(z.string()), sha256: z.optional(z.string()), filename: z.optional(z.string()) });
const mediaTypes = ['image', 'video', 'audio', 'document', 'sticker'] as const;
type MediaType = (typeof mediaTypes)[number];
const reply = z.object({ id: z.string(), title: z.string() });
const location = z.object({ latitude: z.number(), longitude: z.number(), name: z.optional(z.string()), address: z.optional(z.string()) });
/** A customer's completed WhatsApp Flow (`nfm_reply`): `response_json` is their answers, a JSON string as Meta sends it. */
const flowReply = z.object({ name: z.optional(z.string()), body: z.optional(z.string()), response_json: z.string() });
const order = z.object({
  catalog_id: z.string(),
  text: z.optional(z.string()),
  product_items: z.array(z.object({ product_retailer_id: z.string(), quantity: z.number(), item_price: z.number(), currency: z.string() })).check(z.minLength(1)),
});
const sharedContact = z.object({
  name: z.optional(z.object({ formatted_name: z.optional(z.string()), first_name: z.optional(z.string()) })),
  phones: z.optional(z.array(z.object({ phone: z.optional(z.string()), wa_id: z.optional(z.string()) }))),
});

/** The content of each message type we read, by type; a type not here is skipped. */
const contentSchemas = {
  text: z.object({ text: z.object({ body: z.string() }) }),
  /** A quick-reply button of a template (how a "Stop promotions" tap arrives). */
  button: z.object({ button: z.object({ text: z.string(), payload: z.optional(z.string()) }) }),
  interactive: z.object({
    interactive: z.discriminatedUnion('type', [
      z.object({ type: z.literal('button_reply'), button_reply: reply }),
      z.object({ type: z.literal('list_reply'), list_reply: z.extend(reply, { description: z.optional(z.string()) }) }),
      z.object({ type: z.literal('nfm_reply'), nfm_reply: flowReply }),
    ]),
  }),
  /** A cart the customer sent from the business's catalog. */
  order: z.object({ order }),
  ...(Object.fromEntries(mediaTypes.map((type) => [type, z.object({ [type]: media })])) as Record<MediaType, z.ZodMiniObject<Record<string, typeof media>>>),
  location: z.object({ location }),
  contacts: z.object({ contacts: z.array(sharedContact).check(z.minLength(1)) }),
  /** No emoji (or an empty one): the customer took their reaction back. */
  reaction: z.object({ reaction: z.object({ message_id: metaId(), emoji: z.optional(z.string()) }) }),
  unsupported: z.object({}),
  // `wa_id`: the customer's new number, on a number change; `user_id`: their new business-scoped
  // user id, on a BSUID change (which names no number) and on a number change (which makes a new
  // one); `previous_user_id`: the BSUID they had (Meta's changelog, Aug 11, 2026).
  system: z.object({
    system: z.object({ body: z.optional(z.string()), type: z.optional(z.string()), wa_id: z.optional(z.string()), user_id: z.optional(z.string()), previous_user_id: z.optional(z.string()) }),
  }),
} as const;
type ReadType = keyof typeof contentSchemas;
const isReadType = (type: string): type is ReadType => Object.hasOwn(contentSchemas, type);
/** Meta's `revoke` and `edit` messages webhooks (coexistence numbers only), naming the message changed. */
const CHANGES_OF_A_MESSAGE = new Set(['revoke', 'edit']);

/** Media as a message carries it: Meta's media id (fetched on demand, it expires), type and checksum. */
export interface InboundMedia {
  id: string;
  mimeType: string;
  sha256: string | null;
  filename: string | null;
}

/**
 * What a customer's message means to an inbox:
 * `message` — a message of the conversation, with its text (the words, a reply's title, a
 *   caption, a readable location, contact card or order), its payload (what an integration acts
 *   on: a button's payload, a list row's id, a Flow's `response_json`, an order's items as JSON),
 *   media;
 * `reaction` — an emoji on an earlier message (or its removal), never a message of its own;
 * `notice` — something WhatsApp says about the conversation (a number change, with the new number
 *   as WhatsApp gives it and the new BSUID it makes; a business-scoped user id change, with the new
 *   id; each with the BSUID the customer had, when WhatsApp names it), shown, never unread.
 */
export type InboundContent =
  | { kind: 'message'; type: string; text: string | null; payload: string | null; media: InboundMedia | null }
  | { kind: 'reaction'; reactsTo: string; emoji: string | null }
  | { kind: 'notice'; type: string; text: string | null; newPhone: string | null; newUserId: string | null; previousUserId: string | null };

export interface ProviderInbound {
  providerMessageId: string;
  occurredAt: string;
  from: { phone: string | null; userId: string | null };
  content: InboundContent;
}

export function readMessage(raw: unknown): Read<ProviderInbound> {
  const base = messageBase.safeParse(raw);
  if (!base.success) return skip('malformed_message', base.error);
  const { id, timestamp, from, from_user_id, group_id } = base.data;
  // Earlier Cloud API versions, and Meta's Node SDK (`WebhookTypesEnum.Unknown`), name a message
  // WhatsApp could not pass on `unknown`; today's reference names it `unsupported`.
  const type = base.data.type === 'unknown' ? 'unsupported' : base.data.type;
  // Not the participant's one-to-one conversation, and conversations here are one-to-one: filed
  // there, it would read as a private message, and an integration might answer it privately.
  if (group_id !== undefined) return skip('group_message', `group "${group_id}"`);
  // A customer deleting or editing a message they sent: WhatsApp tells of it only on a number shared
  // with the WhatsApp Business app (coexistence), where it is everyday traffic, not a type Meta
  // added. The conversation keeps the message as it came: the API has no deleted or edited message.
  if (CHANGES_OF_A_MESSAGE.has(type)) return skip('customer_message_changed', `type "${type}"`);
  if (!isReadType(type)) return skip('unknown_message_type', `type "${type}"`);
  const content = contentSchemas[type].safeParse(raw);
  if (!content.success) {
    const unknownInteractive = type === 'interactive' && content.error.issues.some((issue) => issue.path.join('.') === 'interactive.type');
    return skip(unknownInteractive ? 'unknown_message_type' : 'malformed_message', content.error);
  }
  return {
    ok: true,
    value: { providerMessageId: id, occurredAt: timestamp, from: { phone: from ?? null, userId: from_user_id ?? null }, content: contentOf(type, content.data) },
  };
}

function contentOf(type: ReadType, data: Record<string, unknown>): InboundContent {
  const message = (text: string | null, extra: { payload?: string | null; media?: InboundMedia | null } = {}): InboundContent => ({
    kind: 'message',
    type,
    text,
    payload: extra.payload ?? null,
    media: extra.media ?? null,
  });
  switch (type) {
    case 'text':
      return message(contentSchemas.text.parse(data).text.body);
    case 'button': {
      const { button } = contentSchemas.button.parse(data);
      return message(button.text, { payload: button.payload ?? null });
    }
    case 'interactive': {
      const { interactive } = contentSchemas.interactive.parse(data);
      if (interactive.type === 'nfm_reply') return message(interactive.nfm_reply.body ?? null, { payload: interactive.nfm_reply.response_json });
      const chosen = interactive.type === 'button_reply' ? interactive.button_reply : interactive.list_reply;
      return message(chosen.title, { payload: chosen.id });
    }
    case 'order': {
      const { catalog_id, text, product_items } = contentSchemas.order.parse(data).order;
      const items = product_items.map((item) => `${item.quantity} × ${item.product_retailer_id} (${item.item_price} ${item.currency})`).join(', ');
      // The items in Meta's own field names, as a Flow's answer comes: an integration reads one JSON shape, Meta's.
      return message(`Order: ${items}${text ? `. ${text}` : ''}`, { payload: JSON.stringify({ catalog_id, product_items }) });
    }
    case 'location': {
      const { latitude, longitude, name, address } = contentSchemas.location.parse(data).location;
      return message(`Location: ${[name, address].filter(Boolean).join(', ') || 'shared'} (${latitude}, ${longitude})`);
    }
    case 'contacts': {
      const cards = contentSchemas.contacts.parse(data).contacts.map((card) => {
        const phones = (card.phones ?? []).map((phone) => phone.phone ?? phone.wa_id).filter(Boolean);
        return [card.name?.formatted_name ?? card.name?.first_name ?? 'Contact', ...phones].join(' ');
      });
      return message(`Contact: ${cards.join('; ')}`);
    }
    case 'reaction': {
      const { message_id, emoji } = contentSchemas.reaction.parse(data).reaction;
      return { kind: 'reaction', reactsTo: message_id, emoji: emoji || null };
    }
    case 'unsupported':
      // As WhatsApp's own apps do: the customer wrote something this API cannot show (a poll, an edit…).
      return message(null);
    case 'system': {
      const { body, wa_id, user_id, previous_user_id } = contentSchemas.system.parse(data).system;
      return { kind: 'notice', type, text: body ?? null, newPhone: wa_id || null, newUserId: user_id || null, previousUserId: previous_user_id || null };
    }
    default: {
      const item = media.parse(data[type]);
      return message(item.caption ?? null, { media: { id: item.id, mimeType: item.mime_type, sha256: item.sha256 ?? null, filename: item.filename ?? null } });
    }
  }
}

// ---- the `user_preferences` field: a customer stops or resumes marketing messages ------------------

const preferencesChangeSchema = z.object({
  metadata: z.object({ phone_number_id: metaId() }),
  user_preferences: z.optional(z.array(z.unknown())),
});

/** A `user_preferences` change: the business number it concerns, and its preferences still unread. */
export type PreferencesChange = { phoneNumberId: string; preferences: unknown[] };

export function readPreferencesChange(value: Record<string, unknown>): Read<PreferencesChange> {
  const parsed = preferencesChangeSchema.safeParse(value);
  if (!parsed.success) return skip('malformed_change', parsed.error);
  return { ok: true, value: { phoneNumberId: parsed.data.metadata.phone_number_id, preferences: parsed.data.user_preferences ?? [] } };
}

/** Meta's reference gives this timestamp as a number; its other webhooks as a string. */
const epochSecondsOrNumber = z.pipe(z.union([z.string(), z.pipe(z.number(), z.transform(String))]), epochSeconds);

const preferenceSchema = z.object({
  wa_id: z.optional(metaId()),
  user_id: z.optional(metaId()),
  category: z.string(),
  value: z.string(),
  timestamp: epochSecondsOrNumber,
});

/** A customer's choice about the business's marketing messages, made in WhatsApp. */
export interface MarketingPreference {
  /** The customer's number (WhatsApp id, digits). */
  phone: string;
  preference: 'stop' | 'resume';
  occurredAt: string;
}

/**
 * One preference. Only `marketing_messages`, `stop` or `resume`, is read; opt-outs are kept by
 * number, so one that names the customer by user id alone (a hidden number) cannot be applied.
 */
export function readPreference(raw: unknown): Read<MarketingPreference> {
  const parsed = preferenceSchema.safeParse(raw);
  if (!parsed.success) return skip('malformed_preference', parsed.error);
  const { wa_id, category, value, timestamp } = parsed.data;
  if (category !== 'marketing_messages' || (value !== 'stop' && value !== 'resume')) return skip('unknown_preference', `category "${category}", value "${value}"`);
  if (!wa_id) return skip('unknown_preference', 'no wa_id: opt-outs are kept by number');
  return { ok: true, value: { phone: wa_id, preference: value, occurredAt: timestamp } };
}

// ---- the `account_update` field: WhatsApp's word on the business account ---------------------------

/**
 * The updates that stop or limit what the account may send: a restriction (each with its type and
 * end), a policy violation, a ban. `DISABLED_UPDATE` also tells of a ban lifted (its state
 * `REINSTATE`): good news, which pages no one (decision 158).
 */
const RESTRICTING_EVENTS = new Set(['ACCOUNT_RESTRICTION', 'ACCOUNT_VIOLATION', 'DISABLED_UPDATE']);
const REINSTATED = 'REINSTATE';

/**
 * Only `event` is required. The details are for the operators' line and are read by hand below:
 * one of a shape we do not read is left out (null) rather than costing the event, since a
 * restriction must page whatever Meta says of it (a zod `catch` would do the same, and bring zod's
 * English error messages into every bundle that parses webhooks).
 */
const accountUpdateSchema = z.object({ event: z.string().check(z.minLength(1)) });
const objectOf = (value: unknown): Record<string, unknown> | undefined =>
  typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>) : undefined;
const textOf = (value: unknown): string | null => (typeof value === 'string' ? value : null);

/**
 * When a restriction ends, as an instant: Meta's reference gives Unix seconds (an integer, or its
 * digits); a date string, as earlier payloads carried, is kept as it came. Any other shape is an
 * unknown end.
 */
function restrictionEnd(value: unknown): string | null {
  if (typeof value !== 'number' && typeof value !== 'string') return null;
  const instant = epochSeconds.safeParse(String(value));
  if (instant.success) return instant.data;
  // The Graph API's own date-time form, `2026-04-19T13:59:20+0000`, as an ISO instant too.
  const dated = /^(\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(?:\.\d+)?)(Z|[+-]\d{2}):?(\d{2})?$/.exec(String(value));
  const at = dated ? Date.parse(`${dated[1]}${dated[2] === 'Z' ? 'Z' : `${dated[2]}:${dated[3] ?? '00'}`}`) : NaN;
  return Number.isNaN(at) ? textOf(value) : new Date(at).toISOString();
}

/** An `account_update` change, read for the operators: its event, whether it restricts the account, and what WhatsApp said of it. */
export interface AccountUpdate {
  event: string;
  restricting: boolean;
  violationType: string | null;
  banState: string | null;
  banDate: string | null;
  /** Each restriction's type and end (an ISO instant, or the date string Meta gave). */
  restrictions: { type: string; expiration: string | null }[];
}

export function readAccountUpdate(value: Record<string, unknown>): Read<AccountUpdate> {
  const parsed = accountUpdateSchema.safeParse(value);
  if (!parsed.success) return skip('malformed_change', parsed.error);
  const { event } = parsed.data;
  const ban = objectOf(value.ban_info);
  const banState = textOf(ban?.waba_ban_state);
  const restrictions = Array.isArray(value.restriction_info) ? value.restriction_info.map(objectOf).filter((item) => item !== undefined) : [];
  return {
    ok: true,
    value: {
      event,
      restricting: RESTRICTING_EVENTS.has(event) && banState !== REINSTATED,
      violationType: textOf(objectOf(value.violation_info)?.violation_type),
      banState,
      banDate: textOf(ban?.waba_ban_date),
      restrictions: restrictions.map((item) => ({ type: textOf(item.restriction_type) ?? 'unknown', expiration: restrictionEnd(item.expiration) })),
    },
  };
}

// ---- the `phone_number_quality_update` field: a number's throughput and its portfolio's limit --------

/**
 * Events an operator acts on: WhatsApp raised the number's throughput (its pace,
 * `whatsappMessagesPerSecond`, can be raised with it), or lowered its messaging limit or flagged its
 * quality (the names older versions of the webhook send).
 */
const THROUGHPUT_RAISED = 'THROUGHPUT_UPGRADE';
const LIMIT_LOWERED = new Set(['DOWNGRADE', 'FLAGGED']);

const numberQualityUpdateSchema = z.object({
  display_phone_number: z.string(),
  event: z.string().check(z.minLength(1)),
  old_limit: z.optional(z.string()),
  current_limit: z.optional(z.string()),
  max_daily_conversations_per_business: z.optional(z.string()),
});

/**
 * A `phone_number_quality_update` change, read for the operators: the number as WhatsApp shows it
 * (the change names no number id), the event, and the business portfolio's messaging limit
 * (`max_daily_conversations_per_business`, or the `current_limit` Meta is retiring).
 */
export interface NumberQualityUpdate {
  displayPhoneNumber: string;
  event: string;
  oldLimit: string | null;
  messagingLimit: string | null;
  /** What the operator may act on: `throughput_raised` (raise the number's pace), `limit_lowered`, or nothing. */
  action: 'throughput_raised' | 'limit_lowered' | null;
}

export function readNumberQualityUpdate(value: Record<string, unknown>): Read<NumberQualityUpdate> {
  const parsed = numberQualityUpdateSchema.safeParse(value);
  if (!parsed.success) return skip('malformed_change', parsed.error);
  const { display_phone_number, event, old_limit, current_limit, max_daily_conversations_per_business } = parsed.data;
  return {
    ok: true,
    value: {
      displayPhoneNumber: display_phone_number,
      event,
      oldLimit: old_limit ?? null,
      messagingLimit: max_daily_conversations_per_business ?? current_limit ?? null,
      action: event === THROUGHPUT_RAISED ? 'throughput_raised' : LIMIT_LOWERED.has(event) ? 'limit_lowered' : null,
    },
  };
}

// ---- signing, and the sandbox's own reports ---------------------------------------------------------

/** `X-Hub-Signature-256`: "sha256=" and the hex HMAC-SHA256 of the raw body with the app secret. */
export function signWebhookBody(rawBody: string | Uint8Array, appSecret: string): string {
  return `sha256=${createHmac('sha256', appSecret).update(typeof rawBody === 'string' ? Buffer.from(rawBody, 'utf8') : rawBody).digest('hex')}`;
}

/** Compares in constant time, on the exact bytes received (never a re-serialised body, nor one decoded as text). */
export function isValidWebhookSignature(rawBody: string | Uint8Array, header: string | undefined, appSecret: string): boolean {
  if (!header) return false;
  const expected = Buffer.from(signWebhookBody(rawBody, appSecret));
  const given = Buffer.from(header.trim());
  return given.length === expected.length && timingSafeEqual(given, expected);
}

/** A status as Meta sends it, for the sandbox and tests to build webhooks from. */
export interface WebhookStatus {
  id: string;
  status: string;
  timestamp: string;
  recipient_id?: string;
  biz_opaque_callback_data?: string;
  errors?: { code: number | string; title?: string }[];
  pricing?: { billable?: boolean; category?: string; pricing_model?: string; type?: string };
}

/** A status webhook as WhatsApp sends it; the sandbox reports through the same shape. */
export function statusWebhook(phoneNumberId: string, statuses: WebhookStatus[]): WebhookEnvelope {
  return {
    object: 'whatsapp_business_account',
    entry: [{ id: 'sandbox', changes: [{ field: 'messages', value: { messaging_product: 'whatsapp', metadata: { phone_number_id: phoneNumberId }, statuses } }] }],
  };
}

/** Kept for callers that build payloads: the envelope is all a payload promises. */
export type WebhookPayload = WebhookEnvelope;
