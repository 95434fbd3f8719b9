import { defaultStore } from '../../shared/default-store';
import type { Store } from '../../shared/store';
import { keys, type ItemKey } from '../../shared/table';
import { isConditionFailed, transactWrite, untilNotOutrun, writeOne, type Write } from '../../shared/writes';
import { findProviderMessage, providerMessagePut } from '../delivery/provider-message';
import { conversationOfDispatch } from '../messages/dispatch';
import { getDispatchById } from '../messages/dispatch-repository';
import { fromWhatsAppNumber } from '../phones/whatsapp-number';
import type { InboundContent } from '../providers/whatsapp-webhook';
import { outboxFor } from '../webhooks/event-gate';
import { messageReceivedEvent } from '../webhooks/webhook-event';
import { numberMovePut } from '../workspaces/number-move';
import { conversationMessageWrites, conversationOf, placedAt, reactionUpdate, type ConversationMessage, type Placement } from './conversation-item';
import { findUserNumber, userNumberPut } from './user-number';

/** A customer's message (or WhatsApp's notice) for a workspace, as the webhook gave it. */
export interface Inbound {
  workspaceId: string;
  /** The customer: their number as WhatsApp gives it (digits, no "+"), their business-scoped user id, or both. */
  from: { phone: string | null; userId: string | null };
  contactName: string | null;
  providerMessageId: string;
  occurredAt: string;
  /** When its webhook reached us, by our clock: where in its whole second it stands (decision 204). */
  receivedAt?: string;
  content: Exclude<InboundContent, { kind: 'reaction' }>;
}

/**
 * Stores a customer's message in its conversation, once: a repeated webhook finds the message
 * there and changes nothing. The conversation's last message, preview and place in the list
 * follow the newest message time (a customer's where in its whole second it reached us: `placedAt`), so a
 * late, retried message is counted and shown in history but never moves them back. A message
 * that names the customer by business-scoped user id (BSUID) alone goes to the conversation of the
 * number an earlier message named with that BSUID (a customer who has since hidden their number
 * behind a username), and carries that number as its contact's; only a contact whose number no
 * message gave has a conversation of its own (docs/api.md#conversations). Its `message.received`
 * event is written with it.
 */
export async function recordInboundMessage(inbound: Inbound, store: Store = defaultStore()): Promise<boolean> {
  const { phone, userId } = inbound.from;
  const contactPhone = await customerNumber(inbound, store);
  const message: ConversationMessage = {
    workspaceId: inbound.workspaceId,
    channel: 'whatsapp',
    contactPhone,
    contactUserId: userId,
    contactName: inbound.contactName,
    messageId: inbound.providerMessageId,
    direction: 'inbound',
    type: inbound.content.type,
    text: inbound.content.text,
    ...(inbound.content.kind === 'message' ? { payload: inbound.content.payload, media: inbound.content.media } : {}),
    // A number change names the customer's new number, in the form the API shows numbers in, and a
    // change of business-scoped user id (which names no number) the new id: an integration follows
    // the customer to the conversation their next messages open.
    ...(inbound.content.kind === 'notice' ? { payload: noticePayload(inbound.content) } : {}),
    createdAt: inbound.occurredAt,
    ...(inbound.receivedAt ? { receivedAt: inbound.receivedAt } : {}),
  };
  // A reaction names the message it reacts to by wamid: this says where the message lives, by the time it is keyed at.
  // A BSUID-only message given its number by an earlier message's may be Meta's repeat of one
  // stored before that, in the BSUID's own conversation: a repeat there too.
  const storedIn = !phone && contactPhone ? conversationOf({ ...message, contactPhone: null }) : undefined;
  const lookup = providerMessagePut(inbound.providerMessageId, { kind: 'customerMessage', workspaceId: inbound.workspaceId, conversationId: conversationOf(message), createdAt: placedAt(message) }, storedIn);
  // Where the customer's later messages that name the BSUID alone go. Put by every message with
  // both rather than read first: one more write in the transaction, no more round trip.
  const { userNumber, numberMove } = identityWrites(inbound, contactPhone);
  // Made once: whichever try commits carries it, and a repeated webhook (refused below) writes none.
  const outbox = await outboxFor(inbound.workspaceId, () => messageReceivedEvent(message, new Date()), store);
  let placement: Placement = inbound.content.kind === 'notice' ? 'notice' : 'latest';
  // A customer's burst, each message in its own POST, meets itself on the conversation: tried as a
  // send is; still outrun, 503 (nothing written), and Meta posts the webhook again.
  return untilNotOutrun(async () => {
    const result = await transactWrite(store, { ...conversationMessageWrites(message, placement), providerMessage: lookup, outbox, userNumber, numberMove });
    if (result.committed) return true;
    // A repeated webhook: refused on its message, or on its wamid's item where the message was
    // stored before decision 204, keyed at WhatsApp's own time rather than where this one would be.
    if (result.refused.message === 'ConditionalCheckFailed' || result.refused.providerMessage === 'ConditionalCheckFailed') return false;
    // A newer message is already the conversation's latest: this one is only counted.
    if (result.refused.conversation === 'ConditionalCheckFailed') placement = 'earlier';
    else if (!Object.values(result.refused).includes('TransactionConflict')) throw new Error(`Inbound message transaction cancelled: ${JSON.stringify(result.refused)}`);
    return undefined;
  });
}

/**
 * The customer's number (E.164): the message's, or, for one that names only their BSUID, the
 * number a message gave with it (a customer who has since hidden their number behind a username).
 * A notice of a change is about the customer as they were: its BSUID is the previous one, not a new
 * one WhatsApp may name as its sender.
 */
export async function customerNumber({ workspaceId, from, content }: Pick<Inbound, 'workspaceId' | 'from'> & { content: InboundContent }, store: Store): Promise<string | null> {
  if (from.phone) return fromWhatsAppNumber(from.phone);
  const userId = content.kind === 'notice' ? (content.previousUserId ?? (from.userId !== content.newUserId ? from.userId : null)) : from.userId;
  return (userId && (await findUserNumber(workspaceId, userId, store))) || null;
}

/**
 * What a message teaches of the customer's identity (decisions 222, 226): the number its sender
 * gave with their BSUID; and, for a notice, the number of the new BSUID WhatsApp names (the new
 * number on a number change, whose new BSUID comes with it; the customer's number on a BSUID
 * change) and the number's move. The notice's own link wins: a sender naming the new BSUID beside
 * the number the customer left (Meta's references do not say which BSUID a notice's sender names)
 * writes none.
 */
function identityWrites({ workspaceId, from, content, occurredAt }: Inbound, contactPhone: string | null): { userNumber: Write[]; numberMove?: Write } {
  const notice = content.kind === 'notice' ? content : undefined;
  const newPhone = notice?.newPhone ? fromWhatsAppNumber(notice.newPhone) : undefined;
  const links: [string, string][] = [];
  if (from.phone && from.userId && from.userId !== notice?.newUserId) links.push([from.userId, fromWhatsAppNumber(from.phone)]);
  const noticed = newPhone ?? contactPhone;
  if (notice?.newUserId && noticed) links.push([notice.newUserId, noticed]);
  const moved = newPhone && contactPhone && contactPhone !== newPhone;
  return {
    userNumber: links.map(([userId, phone]) => userNumberPut(workspaceId, userId, phone)),
    ...(moved ? { numberMove: numberMovePut(workspaceId, contactPhone, newPhone, occurredAt) } : {}),
  };
}

const noticePayload = ({ newPhone, newUserId }: { newPhone: string | null; newUserId: string | null }): string | null =>
  newPhone ? fromWhatsAppNumber(newPhone) : newUserId;

/**
 * A customer's reaction: set on the message it reacts to (ours or theirs), or taken back when it
 * has no emoji. Never a message of its own, never unread, never the conversation's preview.
 * Returns false when the message is not one of the workspace's, or a newer reaction is there.
 */
export async function recordReaction(
  reaction: { workspaceId: string; reactsTo: string; emoji: string | null; occurredAt: string },
  store: Store = defaultStore(),
): Promise<'applied' | 'unchanged' | 'unknown_message_id'> {
  const key = await messageKeyOf(reaction.workspaceId, reaction.reactsTo, store);
  if (!key) return 'unknown_message_id';
  try {
    await writeOne(store, reactionUpdate(key, reaction.emoji, reaction.occurredAt));
    return 'applied';
  } catch (error) {
    if (isConditionFailed(error)) return 'unchanged';
    throw error;
  }
}

/** Where the message a wamid names is stored in its conversation, if it is one of the workspace's. */
async function messageKeyOf(workspaceId: string, wamid: string, store: Store): Promise<ItemKey | undefined> {
  const ref = await findProviderMessage(wamid, store);
  if (!ref || ref.workspaceId !== workspaceId) return undefined;
  if (ref.kind === 'customerMessage') return keys.conversationMessage(workspaceId, ref.conversationId, ref.createdAt, wamid);
  const dispatch = await getDispatchById(ref.dispatchId, store);
  // A send's message in its conversation is keyed by the dispatch (send-transaction.ts).
  return dispatch && keys.conversationMessage(workspaceId, conversationOfDispatch(dispatch), dispatch.createdAt, dispatch.dispatchId);
}
