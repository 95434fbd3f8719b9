import { defaultStore } from '../../shared/default-store';
import type { Store } from '../../shared/store';
import { transactWrite } from '../../shared/writes';
import { toE164 } from '../phones/phone-number';
import { conversationMessageWrites } from './conversation-item';

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

/**
 * Stores a customer's message in its conversation and moves the conversation up, once: a
 * repeated webhook finds the message there and changes nothing.
 */
export async function recordInboundMessage(inbound: Inbound, store: Store = defaultStore()): Promise<boolean> {
  const contactPhone = toE164(inbound.from.startsWith('+') ? inbound.from : `+${inbound.from}`) ?? `+${inbound.from}`;
  const writes = conversationMessageWrites({
    workspaceId: inbound.workspaceId,
    channel: 'whatsapp',
    contactPhone,
    contactName: inbound.contactName,
    messageId: inbound.providerMessageId,
    direction: 'inbound',
    type: inbound.type,
    text: inbound.text,
    createdAt: inbound.occurredAt,
  });
  const result = await transactWrite(store, writes);
  return result.committed;
}
