import { GetCommand, QueryCommand } from '@aws-sdk/lib-dynamodb';
import * as z from '../../shared/zod';
import type { Store } from '../../shared/store';
import { parseItem } from '../../shared/stored-item';
import { firstCharacters, withoutLoneSurrogates } from '../../shared/unicode-text';
import { accessPatterns, indexKeys, keys, type ItemKey } from '../../shared/table';
import type { Write } from '../../shared/writes';
import { conversationIdFor } from './conversation-id';

/**
 * The conversation and conversation-message items: their keys, the writes a message makes
 * (outbound from a send, inbound from a webhook: one builder for both), and their reading back.
 */

const PREVIEW_LENGTH = 120;

const direction = z.enum(['inbound', 'outbound']);
export type Direction = z.output<typeof direction>;

/** Media a customer sent: Meta's media id (to fetch it with the workspace's token), its type and checksum. */
export interface MessageMedia {
  id: string;
  mimeType: string;
  sha256: string | null;
  filename: string | null;
}

/** A message as it lands in its conversation. */
export interface ConversationMessage {
  workspaceId: string;
  channel: 'whatsapp';
  /** E.164; null for a contact known only by a business-scoped user id. */
  contactPhone: string | null;
  /** WhatsApp's business-scoped user id (BSUID), when WhatsApp gave one. */
  contactUserId?: string | null;
  contactName: string | null;
  messageId: string;
  direction: Direction;
  type: string;
  /** Null for an inbound message without text (media without a caption). */
  text: string | null;
  /** Inbound replies: the button's payload, the list row's id, a Flow's answers or an order's items; a number change's new number, as read-conversations.ts describes. */
  payload?: string | null;
  media?: MessageMedia | null;
  createdAt: string;
  /** Inbound only: when its webhook reached us, by our clock (`placedAt`). */
  receivedAt?: string;
  /** Outbound only: the dispatch that sends it, and its template. */
  dispatchId?: string;
  templateId?: string;
}

/**
 * How a message places its conversation: `latest` moves its last message, preview and list order
 * to it if nothing newer is there, and is refused otherwise (a send may commit after a newer
 * message, a customer's message may arrive late, retried); `earlier` only counts it; `notice`
 * (WhatsApp's word about the conversation) neither counts nor moves anything, and only creates the
 * conversation if it has none. A conversation with notices only takes its first message as its
 * last, whatever their times: a notice is never the preview of a conversation with messages.
 */
export type Placement = 'latest' | 'earlier' | 'notice';

/**
 * Where a message stands in its conversation: the time of its history key, and, as its last
 * message, the conversation's `lastMessageAt` and place in the list. A send stands at our clock's
 * millisecond. A customer's message (or WhatsApp's notice), which WhatsApp stamps in whole
 * seconds, stands where in that second it reached us, by the same clock as our sends: after a
 * send of ours it came after (a reply, an auto-responder's), before one made after we had it (an
 * integration's answer to it). One that reached us after its second (late, or Meta's retry)
 * stands at the second's last millisecond, and one our clock says came before it, at its first
 * (decision 204). Its `createdAt` stays WhatsApp's.
 */
export function placedAt(message: Pick<ConversationMessage, 'direction' | 'createdAt' | 'receivedAt'>): string {
  if (message.direction === 'outbound') return message.createdAt;
  const time = Date.parse(message.createdAt);
  const second = time - (time % 1000);
  const received = message.receivedAt ? Date.parse(message.receivedAt) : Number.POSITIVE_INFINITY;
  return new Date(Math.min(Math.max(received, second), second + 999)).toISOString();
}

/**
 * The conversation of a workspace, channel and contact: derived, so a write needs no lookup. A
 * contact is their number; a customer's message that names only their BSUID was given the number
 * an earlier message named with it (inbound-message.ts), so only one whose number we never had
 * keys it by `user:<bsuid>`.
 */
export const conversationOf = (message: Pick<ConversationMessage, 'workspaceId' | 'channel' | 'contactPhone' | 'contactUserId'>) =>
  conversationIdFor(message.workspaceId, message.channel, message.contactPhone ?? `user:${message.contactUserId ?? ''}`);

/**
 * A message's two writes, for one transaction: the message itself, keyed at its `placedAt`
 * (written once: a repeated webhook is refused on it), and its conversation, created on its first
 * message and placed at its `placedAt` as `placement` says. `changedAt` (the write's time) is the
 * conversation's `updatedAt`: a message's own time may be older than a change already recorded
 * (a late message's), and an integration syncing by `updatedAt` must never see it go back.
 *
 * The contact's name: a sender's is `contactName`, the newest send's; the customer's WhatsApp
 * profile name is `profileName`, the newest message's, shown only where no sender named them.
 */
export function conversationMessageWrites(message: ConversationMessage, placement: Placement, changedAt = new Date().toISOString()): { message: Write; conversation: Write } {
  const { workspaceId, createdAt } = message;
  const at = placedAt(message);
  const conversationId = conversationOf(message);
  const inbound = message.direction === 'inbound';
  const activity = indexKeys.conversationActivity(workspaceId, at, conversationId);
  const preview = firstCharacters(message.text ?? `[${message.type}]`, PREVIEW_LENGTH);
  const moves = placement === 'latest';
  const set = ['entity = :entity', 'id = :id', 'workspaceId = :ws', 'channel = :channel', 'createdAt = if_not_exists(createdAt, :createdAt)'];
  if (message.contactPhone) set.push('contactPhone = :phone');
  // The user id WhatsApp gave last: a late message's (Meta's retry) may carry one it has replaced since.
  if (message.contactUserId) set.push(moves ? 'contactUserId = :userId' : 'contactUserId = if_not_exists(contactUserId, :userId)');
  // A name goes with the newest message: one counted `earlier` only fills a gap.
  const nameField = inbound ? 'profileName' : 'contactName';
  if (message.contactName) set.push(moves ? `${nameField} = :name` : `${nameField} = if_not_exists(${nameField}, :name)`);
  const lastMessage = { lastMessageAt: ':at', lastMessagePreview: ':preview', lastMessageDirection: ':direction', gsi1pk: ':gsi1pk', gsi1sk: ':gsi1sk' };
  for (const [field, value] of Object.entries(lastMessage)) {
    // The latest message sets them; a notice fills them only on a conversation it creates.
    if (moves) set.push(`${field} = ${value}`);
    else if (placement === 'notice') set.push(`${field} = if_not_exists(${field}, ${value})`);
  }
  set.push(placement === 'notice' ? 'updatedAt = if_not_exists(updatedAt, :changedAt)' : 'updatedAt = :changedAt');
  if (inbound && placement !== 'notice') set.push(moves ? 'lastInboundAt = :createdAt' : 'lastInboundAt = if_not_exists(lastInboundAt, :createdAt)');
  const counts = placement === 'notice' ? '' : inbound ? ' ADD messageCount :one, inboundCount :one, unreadCount :one' : ' ADD messageCount :one, outboundCount :one';
  return {
    message: {
      Put: {
        Item: {
          ...keys.conversationMessage(workspaceId, conversationId, at, message.messageId),
          entity: 'conversationMessage',
          conversationId,
          messageId: message.messageId,
          direction: message.direction,
          type: message.type,
          text: message.text,
          ...(message.payload ? { payload: message.payload } : {}),
          ...(message.media ? { media: message.media } : {}),
          ...(message.dispatchId ? { dispatchId: message.dispatchId, templateId: message.templateId } : {}),
          createdAt,
        },
        ConditionExpression: 'attribute_not_exists(pk)',
      },
    },
    conversation: {
      Update: {
        Key: keys.conversation(workspaceId, conversationId),
        UpdateExpression: `SET ${set.join(', ')}${counts}`,
        // No messageCount: no conversation yet, or notices only.
        ...(moves ? { ConditionExpression: 'attribute_not_exists(messageCount) OR lastMessageAt <= :at' } : {}),
        ExpressionAttributeValues: {
          ':entity': 'conversation',
          ':id': conversationId,
          ':ws': workspaceId,
          ':channel': message.channel,
          ...(message.contactPhone ? { ':phone': message.contactPhone } : {}),
          ...(message.contactUserId ? { ':userId': message.contactUserId } : {}),
          ...(message.contactName ? { ':name': message.contactName } : {}),
          ':createdAt': createdAt,
          ':changedAt': changedAt,
          ...(placement === 'earlier' ? {} : { ':at': at, ':preview': preview, ':direction': message.direction, ':gsi1pk': activity.gsi1pk, ':gsi1sk': activity.gsi1sk }),
          ...(counts ? { ':one': 1 } : {}),
        },
      },
    },
  };
}

/**
 * A customer's reaction on a message of the conversation: set, replaced, or (no emoji) taken
 * back, the newest reaction winning whatever order they arrive in. A reaction is never a message.
 */
export const reactionUpdate = (key: ItemKey, emoji: string | null, reactedAt: string): Write => ({
  Update: {
    Key: key,
    UpdateExpression: 'SET reaction = :reaction',
    ConditionExpression: 'attribute_exists(pk) AND (attribute_not_exists(reaction) OR reaction.reactedAt <= :at)',
    ExpressionAttributeValues: { ':reaction': { emoji, reactedAt }, ':at': reactedAt },
  },
});

const count = z.pipe(z.optional(z.int().check(z.gte(0))), z.transform((value) => value ?? 0));

const storedConversationSchema = z.object({
  id: z.string(),
  channel: z.string(),
  contactPhone: z.pipe(z.nullish(z.string()), z.transform((value) => value ?? null)),
  contactUserId: z.pipe(z.nullish(z.string()), z.transform((value) => value ?? null)),
  contactName: z.pipe(z.nullish(z.string()), z.transform((value) => value ?? null)),
  profileName: z.pipe(z.nullish(z.string()), z.transform((value) => value ?? null)),
  lastMessageAt: z.string(),
  // A preview written before it was cut by characters may end in half an emoji: read as U+FFFD.
  lastMessagePreview: z.pipe(z.string(), z.transform(withoutLoneSurrogates)),
  lastMessageDirection: direction,
  messageCount: count,
  inboundCount: count,
  outboundCount: count,
  unreadCount: count,
  createdAt: z.string(),
  updatedAt: z.string(),
});
export type StoredConversation = Omit<z.output<typeof storedConversationSchema>, 'profileName'>;

const storedMessageSchema = z.object({
  messageId: z.string(),
  direction,
  type: z.string(),
  text: z.pipe(z.nullish(z.string()), z.transform((value) => value ?? null)),
  payload: z.pipe(z.nullish(z.string()), z.transform((value) => value ?? null)),
  media: z.pipe(z.nullish(z.object({ id: z.string(), mimeType: z.string(), sha256: z.nullable(z.string()), filename: z.nullable(z.string()) })), z.transform((value) => value ?? null)),
  reaction: z.pipe(z.nullish(z.object({ emoji: z.nullable(z.string()), reactedAt: z.string() })), z.transform((value) => (value?.emoji ? { emoji: value.emoji, reactedAt: value.reactedAt } : null))),
  dispatchId: z.optional(z.string()),
  createdAt: z.string(),
});
export type StoredMessage = z.output<typeof storedMessageSchema>;

/** A sender's name for the contact, or else their WhatsApp profile's. */
function toConversation(item: Record<string, unknown>): StoredConversation {
  const { profileName, ...conversation } = parseItem(storedConversationSchema, item, 'conversation');
  return { ...conversation, contactName: conversation.contactName ?? profileName };
}
const toMessage = (item: Record<string, unknown>) => parseItem(storedMessageSchema, item, 'conversation message');

export async function findConversation(workspaceId: string, conversationId: string, store: Store): Promise<StoredConversation | undefined> {
  const { Item } = await store.db.send(new GetCommand({ TableName: store.tableName, Key: keys.conversation(workspaceId, conversationId) }));
  return Item ? toConversation(Item) : undefined;
}

/** One page of a query, and where the next one starts. */
export interface ItemPage<T> {
  items: T[];
  lastKey: Record<string, unknown> | undefined;
}

/** A page of the workspace's conversations, latest activity first. */
export async function conversationsByActivity(workspaceId: string, page: { limit: number; startKey?: Record<string, unknown> }, store: Store): Promise<ItemPage<StoredConversation>> {
  const { Items = [], LastEvaluatedKey } = await store.db.send(
    new QueryCommand({ TableName: store.tableName, ...accessPatterns.conversationsByActivity(workspaceId), ScanIndexForward: false, Limit: page.limit, ExclusiveStartKey: page.startKey }),
  );
  return { items: Items.map(toConversation), lastKey: LastEvaluatedKey };
}

/** A page of a conversation's messages, newest first. */
export async function messagesOfConversation(
  workspaceId: string,
  conversationId: string,
  page: { limit: number; startKey?: Record<string, unknown> },
  store: Store,
): Promise<ItemPage<StoredMessage> & { keys: Record<string, unknown>[] }> {
  const { Items = [], LastEvaluatedKey } = await store.db.send(
    new QueryCommand({
      TableName: store.tableName,
      ...accessPatterns.messagesOfConversation(workspaceId, conversationId),
      ScanIndexForward: false,
      Limit: page.limit,
      ExclusiveStartKey: page.startKey,
    }),
  );
  // Each message's own key, for a page that ends before the Query's last item (decision 229).
  return { items: Items.map(toMessage), keys: Items.map((item) => ({ pk: item.pk as string, sk: item.sk as string })), lastKey: LastEvaluatedKey };
}
