import { TransactWriteCommand } from '@aws-sdk/lib-dynamodb';
import { defaultStore } from '../../shared/default-store';
import type { Store } from '../../shared/store';
import { indexKeys, keys } from '../../shared/table';
import { toE164 } from '../phones/phone-number';
import { conversationIdFor } from './conversation-id';

export interface Inbound {
  workspaceId: string;
  /** The customer's number as WhatsApp gives it (digits, no "+"). */
  from: string;
  providerMessageId: string;
  occurredAt: string;
  type: string;
  text: string | null;
  contactName: string | null;
}

const PREVIEW_LENGTH = 120;

/**
 * Stores a customer's message in its conversation and moves the conversation up, once: a
 * repeated webhook finds the message there and changes nothing.
 */
export async function recordInboundMessage(inbound: Inbound, store: Store = defaultStore()): Promise<boolean> {
  const phone = toE164(inbound.from.startsWith('+') ? inbound.from : `+${inbound.from}`) ?? `+${inbound.from}`;
  const conversationId = conversationIdFor(inbound.workspaceId, 'whatsapp', phone);
  const preview = inbound.text ?? `[${inbound.type}]`;
  const activity = indexKeys.conversationActivity(inbound.workspaceId, inbound.occurredAt, conversationId);
  try {
    await store.db.send(
      new TransactWriteCommand({
        TransactItems: [
          {
            Put: {
              TableName: store.tableName,
              Item: {
                ...keys.conversationMessage(inbound.workspaceId, conversationId, inbound.occurredAt, inbound.providerMessageId),
                entity: 'conversationMessage',
                conversationId,
                messageId: inbound.providerMessageId,
                direction: 'inbound',
                type: inbound.type,
                text: inbound.text,
                createdAt: inbound.occurredAt,
              },
              ConditionExpression: 'attribute_not_exists(pk)',
            },
          },
          {
            Update: {
              TableName: store.tableName,
              Key: keys.conversation(inbound.workspaceId, conversationId),
              UpdateExpression: [
                'SET entity = :entity, id = :id, workspaceId = :ws, channel = :channel, contactPhone = :phone,',
                inbound.contactName ? 'contactName = if_not_exists(contactName, :name),' : '',
                'createdAt = if_not_exists(createdAt, :at), lastMessageAt = :at, lastMessagePreview = :preview,',
                'lastMessageDirection = :direction, lastInboundAt = :at, updatedAt = :at, gsi1pk = :gsi1pk, gsi1sk = :gsi1sk',
                'ADD messageCount :one, inboundCount :one, unreadCount :one',
              ]
                .filter(Boolean)
                .join(' '),
              ExpressionAttributeValues: {
                ':entity': 'conversation',
                ':id': conversationId,
                ':ws': inbound.workspaceId,
                ':channel': 'whatsapp',
                ':phone': phone,
                ...(inbound.contactName ? { ':name': inbound.contactName } : {}),
                ':at': inbound.occurredAt,
                ':preview': preview.slice(0, PREVIEW_LENGTH),
                ':direction': 'inbound',
                ':gsi1pk': activity.gsi1pk,
                ':gsi1sk': activity.gsi1sk,
                ':one': 1,
              },
            },
          },
        ],
      }),
    );
    return true;
  } catch (error) {
    if ((error as Error).name === 'TransactionCanceledException') return false;
    throw error;
  }
}
