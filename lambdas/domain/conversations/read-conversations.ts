import { GetCommand, QueryCommand } from '@aws-sdk/lib-dynamodb';
import * as z from 'zod';
import { batchGet } from '../../shared/batch-get';
import { defaultStore } from '../../shared/default-store';
import { NotFoundError, ValidationError } from '../../shared/errors';
import type { Store } from '../../shared/store';
import { keys } from '../../shared/table';
import { dispatchStatuses, type DispatchStatus } from '../messages/dispatch';
import { toE164 } from '../phones/phone-number';
import { instant } from '../time/instant';
import { conversationIdFor } from './conversation-id';
import { decodeCursor, encodeCursor } from './cursor';

const direction = z.enum(['inbound', 'outbound']);

/** A conversation as the API shows it (docs/api.md#list-conversations). */
export const conversationSchema = z.object({
  id: z.guid(),
  channel: z.string(),
  /** E.164. */
  contactPhone: z.string(),
  contactName: z.string().nullable(),
  lastMessageAt: instant(),
  lastMessagePreview: z.string(),
  lastMessageDirection: direction,
  messageCount: z.int().min(0),
  inboundCount: z.int().min(0),
  outboundCount: z.int().min(0),
  unreadCount: z.int().min(0),
  createdAt: instant(),
  updatedAt: instant(),
});
export type ConversationResource = z.output<typeof conversationSchema>;

export const conversationMessageSchema = z.object({
  id: z.string(),
  direction,
  type: z.string(),
  /** The rendered template text (outbound) or the customer's text (inbound); null for media. */
  text: z.string().nullable(),
  /** Outbound only: the dispatch and its current status. */
  dispatchId: z.guid().nullable(),
  status: z.enum(dispatchStatuses).nullable(),
  createdAt: instant(),
});
export type MessageResource = z.output<typeof conversationMessageSchema>;

/** A cursor page (docs/api.md#pagination): `nextCursor` is null on the last page. */
export const cursorPageSchema = <T extends z.ZodType>(item: T) => z.object({ items: z.array(item), nextCursor: z.string().nullable() });
export type PageOf<T> = { items: T[]; nextCursor: string | null };

const toConversation = (item: Record<string, unknown>): ConversationResource => ({
  id: item.id as string,
  channel: item.channel as string,
  contactPhone: item.contactPhone as string,
  contactName: (item.contactName as string | undefined) ?? null,
  lastMessageAt: item.lastMessageAt as string,
  lastMessagePreview: item.lastMessagePreview as string,
  lastMessageDirection: item.lastMessageDirection as 'inbound' | 'outbound',
  messageCount: (item.messageCount as number | undefined) ?? 0,
  inboundCount: (item.inboundCount as number | undefined) ?? 0,
  outboundCount: (item.outboundCount as number | undefined) ?? 0,
  unreadCount: (item.unreadCount as number | undefined) ?? 0,
  createdAt: item.createdAt as string,
  updatedAt: item.updatedAt as string,
});

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
    const conversation = await getConversationItem(workspaceId, conversationIdFor(workspaceId, 'whatsapp', phone), store);
    return { items: conversation ? [toConversation(conversation)] : [], nextCursor: null };
  }
  const scope = `${workspaceId}|conversations`;
  const page = await store.db.send(
    new QueryCommand({
      TableName: store.tableName,
      IndexName: 'gsi1',
      KeyConditionExpression: 'gsi1pk = :pk',
      ExpressionAttributeValues: { ':pk': `WS#${workspaceId}#CONVS` },
      ScanIndexForward: false,
      Limit: query.limit,
      ExclusiveStartKey: await decodeCursor(query.cursor, scope),
    }),
  );
  return { items: (page.Items ?? []).map(toConversation), nextCursor: await encodeCursor(page.LastEvaluatedKey, scope) };
}

/** One conversation; a missing or foreign id is the same 404. */
export async function getConversation(workspaceId: string, conversationId: string, store: Store = defaultStore()): Promise<ConversationResource> {
  const item = await getConversationItem(workspaceId, conversationId, store);
  if (!item) throw new NotFoundError('Conversation');
  return toConversation(item);
}

/** A conversation's messages, newest first, a cursor page at a time, outbound ones with their dispatch's current status. */
export async function conversationHistory(
  workspaceId: string,
  conversationId: string,
  query: { limit: number; cursor?: string },
  store: Store = defaultStore(),
): Promise<PageOf<MessageResource>> {
  const scope = `${workspaceId}|history|${conversationId}`;
  const startKey = await decodeCursor(query.cursor, scope);
  if (!(await getConversationItem(workspaceId, conversationId, store))) throw new NotFoundError('Conversation');
  const page = await store.db.send(
    new QueryCommand({
      TableName: store.tableName,
      KeyConditionExpression: 'pk = :pk AND begins_with(sk, :messages)',
      ExpressionAttributeValues: { ':pk': keys.conversation(workspaceId, conversationId).pk, ':messages': 'MSG#' },
      ScanIndexForward: false,
      Limit: query.limit,
      ExclusiveStartKey: startKey,
    }),
  );
  const messages = page.Items ?? [];
  const dispatchIds = messages.map((message) => message.dispatchId as string | undefined).filter((id): id is string => !!id);
  const statuses = new Map((await batchGet(store, dispatchIds.map((id) => keys.dispatch(id)))).map((item) => [item.dispatchId as string, item.status as DispatchStatus]));
  return {
    items: messages.map((message) => ({
      id: message.messageId as string,
      direction: message.direction as 'inbound' | 'outbound',
      type: message.type as string,
      text: (message.text as string | null | undefined) ?? null,
      dispatchId: (message.dispatchId as string | undefined) ?? null,
      status: message.dispatchId ? (statuses.get(message.dispatchId as string) ?? null) : null,
      createdAt: message.createdAt as string,
    })),
    nextCursor: await encodeCursor(page.LastEvaluatedKey, scope),
  };
}

async function getConversationItem(workspaceId: string, conversationId: string, store: Store): Promise<Record<string, unknown> | undefined> {
  const { Item } = await store.db.send(new GetCommand({ TableName: store.tableName, Key: keys.conversation(workspaceId, conversationId) }));
  return Item;
}
