import { GetCommand, QueryCommand } from '@aws-sdk/lib-dynamodb';
import * as z from 'zod';
import type { Store } from '../../shared/store';
import { parseItem } from '../../shared/stored-item';
import { accessPatterns, indexKeys, keys } from '../../shared/table';
import type { Write } from '../../shared/writes';
import { conversationIdFor } from './conversation-id';

/**
 * The conversation and conversation-message items: their keys, the writes a message makes
 * (outbound from a send, inbound from a webhook: one builder for both), the touch of a status
 * move, and their reading back.
 */

const PREVIEW_LENGTH = 120;

const direction = z.enum(['inbound', 'outbound']);
export type Direction = z.output<typeof direction>;

/** A message as it lands in its conversation. */
export interface ConversationMessage {
  workspaceId: string;
  channel: 'whatsapp';
  /** E.164. */
  contactPhone: string;
  contactName: string | null;
  messageId: string;
  direction: Direction;
  type: string;
  /** Null for an inbound message without text (media). */
  text: string | null;
  createdAt: string;
  /** Outbound only: the dispatch that sends it, and its template. */
  dispatchId?: string;
  templateId?: string;
}

/** The conversation of a workspace, channel and contact: derived, so a write needs no lookup. */
export const conversationOf = (message: Pick<ConversationMessage, 'workspaceId' | 'channel' | 'contactPhone'>) =>
  conversationIdFor(message.workspaceId, message.channel, message.contactPhone);

/**
 * A message's two writes, for one transaction: the message itself (written once: a repeated
 * webhook is refused on it) and its conversation, created on its first message and moved to the
 * top of the list on every one.
 */
export function conversationMessageWrites(message: ConversationMessage): { message: Write; conversation: Write } {
  const { workspaceId, createdAt } = message;
  const conversationId = conversationOf(message);
  const inbound = message.direction === 'inbound';
  const activity = indexKeys.conversationActivity(workspaceId, createdAt, conversationId);
  const preview = (message.text ?? `[${message.type}]`).slice(0, PREVIEW_LENGTH);
  return {
    message: {
      Put: {
        Item: {
          ...keys.conversationMessage(workspaceId, conversationId, createdAt, message.messageId),
          entity: 'conversationMessage',
          conversationId,
          messageId: message.messageId,
          direction: message.direction,
          type: message.type,
          text: message.text,
          ...(message.dispatchId ? { dispatchId: message.dispatchId, templateId: message.templateId } : {}),
          createdAt,
        },
        ConditionExpression: 'attribute_not_exists(pk)',
      },
    },
    conversation: {
      Update: {
        Key: keys.conversation(workspaceId, conversationId),
        UpdateExpression: [
          'SET entity = :entity, id = :id, workspaceId = :ws, channel = :channel, contactPhone = :phone,',
          // A sender's latest name wins; the customer's own profile name only fills a gap.
          message.contactName ? (inbound ? 'contactName = if_not_exists(contactName, :name),' : 'contactName = :name,') : '',
          'createdAt = if_not_exists(createdAt, :at),',
          'lastMessageAt = :at, lastMessagePreview = :preview, lastMessageDirection = :direction,',
          inbound ? 'lastInboundAt = :at,' : '',
          'updatedAt = :at, gsi1pk = :gsi1pk, gsi1sk = :gsi1sk',
          inbound ? 'ADD messageCount :one, inboundCount :one, unreadCount :one' : 'ADD messageCount :one, outboundCount :one',
        ]
          .filter(Boolean)
          .join(' '),
        ExpressionAttributeValues: {
          ':entity': 'conversation',
          ':id': conversationId,
          ':ws': workspaceId,
          ':channel': message.channel,
          ':phone': message.contactPhone,
          ...(message.contactName ? { ':name': message.contactName } : {}),
          ':at': createdAt,
          ':preview': preview,
          ':direction': message.direction,
          ':gsi1pk': activity.gsi1pk,
          ':gsi1sk': activity.gsi1sk,
          ':one': 1,
        },
      },
    },
  };
}

/** A status move shows as activity: the conversation's `updatedAt` moves (its messages' statuses are read live). */
export const conversationTouch = (workspaceId: string, conversationId: string, now: string): Write => ({
  Update: { Key: keys.conversation(workspaceId, conversationId), UpdateExpression: 'SET updatedAt = :now', ExpressionAttributeValues: { ':now': now } },
});

const count = z.int().min(0).optional().transform((value) => value ?? 0);

const storedConversationSchema = z.object({
  id: z.string(),
  channel: z.string(),
  contactPhone: z.string(),
  contactName: z.string().nullish().transform((value) => value ?? null),
  lastMessageAt: z.string(),
  lastMessagePreview: z.string(),
  lastMessageDirection: direction,
  messageCount: count,
  inboundCount: count,
  outboundCount: count,
  unreadCount: count,
  createdAt: z.string(),
  updatedAt: z.string(),
});
export type StoredConversation = z.output<typeof storedConversationSchema>;

const storedMessageSchema = z.object({
  messageId: z.string(),
  direction,
  type: z.string(),
  text: z.string().nullish().transform((value) => value ?? null),
  dispatchId: z.string().optional(),
  createdAt: z.string(),
});
export type StoredMessage = z.output<typeof storedMessageSchema>;

const toConversation = (item: Record<string, unknown>) => parseItem(storedConversationSchema, item, 'conversation');
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
): Promise<ItemPage<StoredMessage>> {
  const { Items = [], LastEvaluatedKey } = await store.db.send(
    new QueryCommand({
      TableName: store.tableName,
      ...accessPatterns.messagesOfConversation(workspaceId, conversationId),
      ScanIndexForward: false,
      Limit: page.limit,
      ExclusiveStartKey: page.startKey,
    }),
  );
  return { items: Items.map(toMessage), lastKey: LastEvaluatedKey };
}
