import { DeleteCommand, GetCommand, PutCommand } from '@aws-sdk/lib-dynamodb';
import { applyProviderReports } from '../../lambdas/domain/delivery/provider-reports';
import { conversationHistory, listConversations } from '../../lambdas/domain/conversations/read-conversations';
import { sendTemplateMessage } from '../../lambdas/domain/messages/send-message';
import type { WebhookPayload } from '../../lambdas/domain/providers/whatsapp-webhook';
import { keys } from '../../lambdas/shared/table';
import { sendCommand, sendingWorkspace } from '../support/send-commands';
import { useTableAndQueues } from '../support/sqs';
import { whatsAppEnvelope } from '../support/webhooks';

/**
 * Decision 204: WhatsApp stamps a customer's message in whole seconds and our sends carry our
 * clock's millisecond, so a reply in the second of the send it answers stands at the end of its
 * second, after the send, while the API shows WhatsApp's own time as its `createdAt`.
 */
const env = useTableAndQueues();
afterEach(() => env.queues.receiveAll());

/** A customer's message (`text` or `reaction`) as Meta's webhook reference documents it. */
const metaInbound = (phoneNumberId: string, id: string, timestamp: string, content: { text: { body: string } } | { reaction: { message_id: string; emoji: string } }): WebhookPayload =>
  whatsAppEnvelope(
    'messages',
    {
      messaging_product: 'whatsapp',
      metadata: { display_phone_number: '15550783881', phone_number_id: phoneNumberId },
      contacts: [{ profile: { name: 'Budi' }, wa_id: '6281234567890' }],
      messages: [{ from: '6281234567890', id, timestamp, type: 'text' in content ? 'text' : 'reaction', ...content }],
    },
    '102290129340398',
  );

/** The reply's wamid: one per workspace, as the table is shared by the file's tests. */
const replyOf = (ws: string) => `wamid.HBgLNjI4MTIzNDU2Nzg5MBUCABIYIDQ.${ws}`;

/** Our send at 10:00:00.700 (the API function's clock), then the customer's reply WhatsApp stamps 10:00:00 (1790848800), which reaches us at .900. */
async function replyInTheSecondOfTheSend() {
  const ws = await sendingWorkspace(env.table);
  await sendTemplateMessage(sendCommand(ws, { now: new Date('2026-10-01T10:00:00.700Z') }), { store: env.table, queue: env.queues });
  expect(await applyProviderReports(metaInbound(`sandbox:${ws}`, replyOf(ws), '1790848800', { text: { body: 'Terima kasih!' } }), env.table, new Date('2026-10-01T10:00:00.900Z'))).toMatchObject({ inbound: 1 });
  const conversation = (await listConversations(ws, { phone: '081234567890', limit: 1 }, env.table)).items[0]!;
  return { ws, conversation, reply: replyOf(ws) };
}

describe('a reply in the same whole second as the send it answers', () => {
  it('is the conversation’s last message: WhatsApp’s whole-second time is not older than our millisecond send', async () => {
    const { ws, conversation } = await replyInTheSecondOfTheSend();
    const history = await conversationHistory(ws, conversation.id, { limit: 20 }, env.table);
    expect({ last: conversation.lastMessageDirection, preview: conversation.lastMessagePreview, newestFirst: history.items.map((message) => message.direction) }).toEqual({
      last: 'inbound',
      preview: 'Terima kasih!',
      newestFirst: ['inbound', 'outbound'],
    });
  });

  it('shows WhatsApp’s own time on the message, and where in its second it reached us as the conversation’s lastMessageAt', async () => {
    const { ws, conversation } = await replyInTheSecondOfTheSend();
    const history = await conversationHistory(ws, conversation.id, { limit: 20 }, env.table);
    expect(conversation.lastMessageAt).toBe('2026-10-01T10:00:00.900Z');
    expect(history.items.map((message) => message.createdAt)).toEqual(['2026-10-01T10:00:00.000Z', '2026-10-01T10:00:00.700Z']);
  });

  it('moves its conversation above one whose last send was later in that second, and pages its history in the same order', async () => {
    const ws = await sendingWorkspace(env.table);
    await sendTemplateMessage(sendCommand(ws, { now: new Date('2026-10-01T10:00:00.700Z') }), { store: env.table, queue: env.queues });
    await sendTemplateMessage(sendCommand(ws, { to: '081299998888', now: new Date('2026-10-01T10:00:00.800Z') }), { store: env.table, queue: env.queues });
    await applyProviderReports(metaInbound(`sandbox:${ws}`, replyOf(ws), '1790848800', { text: { body: 'Terima kasih!' } }), env.table);

    const list = await listConversations(ws, { limit: 20 }, env.table);
    expect(list.items.map((conversation) => conversation.contactPhone)).toEqual(['+6281234567890', '+6281299998888']);
    const first = await conversationHistory(ws, list.items[0]!.id, { limit: 1 }, env.table);
    const second = await conversationHistory(ws, list.items[0]!.id, { limit: 1, cursor: first.nextCursor! }, env.table);
    expect([...first.items, ...second.items].map((message) => message.direction)).toEqual(['inbound', 'outbound']);
  });

  it('takes the customer’s reaction on it', async () => {
    const { ws, conversation, reply } = await replyInTheSecondOfTheSend();
    expect(await applyProviderReports(metaInbound(`sandbox:${ws}`, `wamid.reaction.${ws}`, '1790848805', { reaction: { message_id: reply, emoji: '👍' } }), env.table)).toMatchObject({ reactions: 1 });
    const history = await conversationHistory(ws, conversation.id, { limit: 20 }, env.table);
    expect(history.items[0]).toMatchObject({ id: reply, reaction: { emoji: '👍', reactedAt: '2026-10-01T10:00:05.000Z' } });
  });
});

describe('a customer’s message stored before decision 204, keyed at WhatsApp’s own time', () => {
  /** Moves the reply, and its wamid's item, back to where they were stored before: at 10:00:00.000. */
  async function storedTheOldWay(ws: string, conversationId: string, reply: string) {
    const { db, tableName } = env.table;
    const placed = keys.conversationMessage(ws, conversationId, '2026-10-01T10:00:00.900Z', reply);
    const { Item } = await db.send(new GetCommand({ TableName: tableName, Key: placed }));
    await db.send(new DeleteCommand({ TableName: tableName, Key: placed }));
    await db.send(new PutCommand({ TableName: tableName, Item: { ...Item, ...keys.conversationMessage(ws, conversationId, '2026-10-01T10:00:00.000Z', reply) } }));
    const lookup = await db.send(new GetCommand({ TableName: tableName, Key: keys.providerMessage(reply) }));
    await db.send(new PutCommand({ TableName: tableName, Item: { ...lookup.Item, createdAt: '2026-10-01T10:00:00.000Z' } }));
  }

  it('still takes a reaction, and is not stored again when WhatsApp repeats its webhook', async () => {
    const { ws, conversation, reply } = await replyInTheSecondOfTheSend();
    await storedTheOldWay(ws, conversation.id, reply);

    expect(await applyProviderReports(metaInbound(`sandbox:${ws}`, reply, '1790848800', { text: { body: 'Terima kasih!' } }), env.table)).toMatchObject({ inbound: 0 });
    expect(await applyProviderReports(metaInbound(`sandbox:${ws}`, `wamid.reaction.${ws}`, '1790848805', { reaction: { message_id: reply, emoji: '❤️' } }), env.table)).toMatchObject({ reactions: 1 });
    const history = await conversationHistory(ws, conversation.id, { limit: 20 }, env.table);
    expect(history.items.find((message) => message.id === reply)).toMatchObject({ reaction: { emoji: '❤️' } });
    expect((await listConversations(ws, { phone: '081234567890', limit: 1 }, env.table)).items[0]).toMatchObject({ messageCount: 2, inboundCount: 1 });
  });
});
