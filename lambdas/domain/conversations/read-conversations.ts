import * as z from '../../shared/zod';
import { batchGet } from '../../shared/batch-get';
import { defaultStore } from '../../shared/default-store';
import { NotFoundError, ValidationError } from '../../shared/errors';
import type { Store } from '../../shared/store';
import { keys } from '../../shared/table';
import { dispatchStatuses } from '../messages/dispatch';
import { toDispatch } from '../messages/dispatch-repository';
import { toE164 } from '../phones/phone-number';
import { instant } from '../time/instant';
import { conversationIdFor } from './conversation-id';
import { conversationsByActivity, findConversation, messagesOfConversation } from './conversation-item';
import { decodeCursor, encodeCursor } from './cursor';

const direction = z.enum(['inbound', 'outbound']);

/** A conversation as the API shows it (docs/api.md#list-conversations). */
export const conversationSchema = z.object({
  id: z.guid(),
  channel: z.string(),
  /** E.164; null for a contact WhatsApp names only by a business-scoped user id (docs/api.md#conversations). */
  contactPhone: z.nullable(z.string()),
  /** WhatsApp's business-scoped user id (BSUID) of the contact, when WhatsApp gave one. */
  contactUserId: z.nullable(z.string()),
  contactName: z.nullable(z.string()),
  lastMessageAt: instant(),
  lastMessagePreview: z.string(),
  lastMessageDirection: direction,
  messageCount: z.int().check(z.gte(0)),
  inboundCount: z.int().check(z.gte(0)),
  outboundCount: z.int().check(z.gte(0)),
  unreadCount: z.int().check(z.gte(0)),
  createdAt: instant(),
  updatedAt: instant(),
});
export type ConversationResource = z.output<typeof conversationSchema>;

export const conversationMessageSchema = z.object({
  id: z.string(),
  direction,
  type: z.string(),
  /**
   * The rendered template text (outbound) or what the customer wrote (inbound): their words, the
   * title of the button or list row they chose, a media caption, a location or contact card in
   * words, a completed Flow's closing text, an order's items in words; null for media without a
   * caption.
   */
  text: z.nullable(z.string()),
  /**
   * Inbound replies: the button's payload or the list row's id; a completed WhatsApp Flow's
   * answers (its `response_json`, a JSON string as WhatsApp sent it); an order's
   * `{"catalog_id", "product_items"}` as a JSON string, in WhatsApp's field names; a number
   * change's notice: the customer's new number (E.164).
   */
  payload: z.nullable(z.string()),
  /** Inbound media: WhatsApp's media id (fetched with the workspace's token), type, checksum, file name. */
  media: z.nullable(z.object({ id: z.string(), mimeType: z.string(), sha256: z.nullable(z.string()), filename: z.nullable(z.string()) })),
  /** The customer's emoji reaction on this message, the latest one; null when none or taken back. */
  reaction: z.nullable(z.object({ emoji: z.string(), reactedAt: instant() })),
  /** Outbound only: the dispatch and its current status. */
  dispatchId: z.nullable(z.guid()),
  status: z.nullable(z.enum(dispatchStatuses)),
  /** Outbound only: when the recipient read it. */
  readAt: z.nullable(instant()),
  createdAt: instant(),
});
export type MessageResource = z.output<typeof conversationMessageSchema>;

/** A cursor page (docs/api.md#pagination): `nextCursor` is null on the last page. */
export const cursorPageSchema = <T extends z.ZodMiniType>(item: T) => z.object({ items: z.array(item), nextCursor: z.nullable(z.string()) });
export type PageOf<T> = { items: T[]; nextCursor: string | null };

/**
 * The workspace's conversations, latest activity first, a cursor page at a time; or, with
 * `phone`, the one conversation with that number (normalized, so `0812…`, `62812…` and
 * `+62 812-…` find the same).
 */
export async function listConversations(
  workspaceId: string,
  query: { phone?: string; limit: number; cursor?: string },
  store: Store = defaultStore(),
): Promise<PageOf<ConversationResource>> {
  if (query.phone !== undefined) {
    const phone = toE164(query.phone);
    if (!phone) throw new ValidationError(`query.phone: "${query.phone}" is not a valid phone number`);
    await decodeCursor(query.cursor, `${workspaceId}|conversations|${phone}`);
    const conversation = await findConversation(workspaceId, conversationIdFor(workspaceId, 'whatsapp', phone), store);
    return { items: conversation ? [conversation] : [], nextCursor: null };
  }
  const scope = `${workspaceId}|conversations`;
  const page = await conversationsByActivity(workspaceId, { limit: query.limit, startKey: await decodeCursor(query.cursor, scope) }, store);
  return { items: page.items, nextCursor: await encodeCursor(page.lastKey, scope) };
}

/** One conversation; a missing or foreign id is the same 404. */
export async function getConversation(workspaceId: string, conversationId: string, store: Store = defaultStore()): Promise<ConversationResource> {
  const conversation = await findConversation(workspaceId, conversationId, store);
  if (!conversation) throw new NotFoundError('Conversation');
  return conversation;
}

/**
 * What a page's items may add up to besides its `limit`, as `sizeOf` counts them: the page ends
 * before the item that would pass `bytes`, with the cursor to it, and always holds its first item.
 */
export interface PageBudget {
  bytes: number;
  sizeOf: (item: unknown) => number;
}

/**
 * A conversation's messages, newest first, a cursor page at a time, outbound ones with their
 * dispatch's current status; within `budget` when one is given (decision 229).
 */
export async function conversationHistory(
  workspaceId: string,
  conversationId: string,
  query: { limit: number; cursor?: string; budget?: PageBudget },
  store: Store = defaultStore(),
): Promise<PageOf<MessageResource>> {
  const scope = `${workspaceId}|history|${conversationId}`;
  const startKey = await decodeCursor(query.cursor, scope);
  if (!(await findConversation(workspaceId, conversationId, store))) throw new NotFoundError('Conversation');
  const page = await messagesOfConversation(workspaceId, conversationId, { limit: query.limit, startKey }, store);
  const dispatchIds = page.items.map((message) => message.dispatchId).filter((id): id is string => !!id);
  const dispatches = new Map((await batchGet(store, dispatchIds.map((id) => keys.dispatch(id)))).map(toDispatch).map((dispatch) => [dispatch.dispatchId, dispatch]));
  const items = page.items.map(
    (message): MessageResource => ({
      id: message.messageId,
      direction: message.direction,
      type: message.type,
      text: message.text,
      payload: message.payload,
      media: message.media,
      reaction: message.reaction,
      dispatchId: message.dispatchId ?? null,
      status: message.dispatchId ? (dispatches.get(message.dispatchId)?.status ?? null) : null,
      readAt: message.dispatchId ? (dispatches.get(message.dispatchId)?.readAt ?? null) : null,
      createdAt: message.createdAt,
    }),
  );
  const kept = query.budget ? itemsWithin(items, query.budget) : items.length;
  return { items: items.slice(0, kept), nextCursor: await encodeCursor(kept < items.length ? page.keys[kept - 1] : page.lastKey, scope) };
}

/** How many of `items`, from the first, fit `budget`; never fewer than one. */
function itemsWithin(items: readonly unknown[], budget: PageBudget): number {
  let bytes = 0;
  for (let count = 0; count < items.length; count++) {
    bytes += budget.sizeOf(items[count]);
    if (bytes > budget.bytes) return Math.max(count, 1);
  }
  return items.length;
}
