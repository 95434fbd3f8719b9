import { TransactionCanceledException } from '@aws-sdk/client-dynamodb';
import type { BuildMiddleware } from '@smithy/types';
import { recordInboundMessage, type Inbound } from '../../lambdas/domain/conversations/inbound-message';
import { applyProviderReports } from '../../lambdas/domain/delivery/provider-reports';
import { conversationHistory, getConversation, listConversations } from '../../lambdas/domain/conversations/read-conversations';
import { sendTemplateMessage } from '../../lambdas/domain/messages/send-message';
import { sendCommand, sendingWorkspace } from '../support/send-commands';
import { useTableAndQueues } from '../support/sqs';
import { whatsAppEnvelope } from '../support/webhooks';

/**
 * A review of conversations (docs/api.md#conversations): "Order and preview follow the newest
 * message time, never arrival order"; `updatedAt` is when the conversation's fields last changed,
 * so a sync by it never goes back; `contactName` is what a sender or the contact's WhatsApp
 * profile gave; a `system` notice is never the preview of a conversation with messages.
 */
const env = useTableAndQueues();

/** A send whose request began at `at` (its createdAt), committed when this is called. */
const send = (ws: string, to: string, order: string, at: string, contactName?: string) =>
  sendTemplateMessage(sendCommand(ws, { to, variables: { name: 'Budi', order }, now: new Date(at), ...(contactName ? { contactName } : {}) }), { store: env.table, queue: env.queues });
const text = (body: string): Inbound['content'] => ({ kind: 'message', type: 'text', text: body, payload: null, media: null });
const inbound = (ws: string, id: string, occurredAt: string, content: Inbound['content'] = text(id), contactName: string | null = null) =>
  recordInboundMessage({ workspaceId: ws, from: { phone: '6281234567890', userId: null }, providerMessageId: id, occurredAt, content, contactName }, env.table);
const conversationOf = async (ws: string) => (await listConversations(ws, { phone: '081234567890', limit: 1 }, env.table)).items[0]!;
const secondsAgo = (seconds: number) => new Date(Math.floor(Date.now() / 1000) * 1000 - seconds * 1000).toISOString();

describe('a send that commits after a newer message', () => {
  it('keeps the newer of two sends as the last message when the older one commits second (a conflict’s retry)', async () => {
    const ws = await sendingWorkspace(env.table);
    await send(ws, '081234567890', 'shipped', '2026-10-01T10:00:00.900Z');
    await send(ws, '081234567890', 'confirmed', '2026-10-01T10:00:00.100Z');
    const conversation = await conversationOf(ws);
    const history = await conversationHistory(ws, conversation.id, { limit: 20 }, env.table);
    expect(history.items.map((message) => message.text)).toEqual(['Halo Budi, pesanan shipped sudah dikirim.', 'Halo Budi, pesanan confirmed sudah dikirim.']);
    expect(conversation).toMatchObject({ messageCount: 2, outboundCount: 2, lastMessageAt: '2026-10-01T10:00:00.900Z', lastMessagePreview: 'Halo Budi, pesanan shipped sudah dikirim.' });
  });

  it('keeps a customer’s newer reply as the last message, and its conversation first in the list', async () => {
    const ws = await sendingWorkspace(env.table);
    await send(ws, '081299998888', 'other', '2026-10-01T10:00:02.000Z');
    await inbound(ws, 'wamid.reply.1', '2026-10-01T10:00:03.000Z', text('Kapan sampai?'));
    await send(ws, '081234567890', 'late', '2026-10-01T10:00:01.000Z');

    const list = await listConversations(ws, { limit: 20 }, env.table);
    expect(list.items.map((conversation) => conversation.contactPhone)).toEqual(['+6281234567890', '+6281299998888']);
    expect(list.items[0]).toMatchObject({ lastMessageAt: '2026-10-01T10:00:03.999Z', lastMessageDirection: 'inbound', lastMessagePreview: 'Kapan sampai?', inboundCount: 1, outboundCount: 1 });
  });
});

describe('a conversation’s updatedAt', () => {
  // A review: the send's retry after a TransactionConflict wrote the time of its first try, under a change recorded meanwhile.
  it('never moves back when a send is tried again after another write committed meanwhile', async () => {
    const ws = await sendingWorkspace(env.table);
    let armed = true;
    let between: string | undefined;
    const conflictOnce: BuildMiddleware<object, object> = (next, context) => async (args) => {
      if (context.commandName !== 'TransactWriteItemsCommand' || !armed) return next(args);
      armed = false;
      await new Promise((resolve) => setTimeout(resolve, 50));
      await inbound(ws, `wamid.between.${ws}`, secondsAgo(60));
      between = (await conversationOf(ws)).updatedAt;
      const items = (args.input as { TransactItems?: unknown[] }).TransactItems ?? [];
      throw new TransactionCanceledException({ message: 'Transaction cancelled', $metadata: { httpStatusCode: 400 }, CancellationReasons: items.map(() => ({ Code: 'TransactionConflict' })) });
    };
    env.table.db.middlewareStack.add(conflictOnce as never, { step: 'build', name: 'conflict-once' });
    try {
      await sendTemplateMessage(sendCommand(ws, { now: new Date() }), { store: env.table, queue: env.queues });
    } finally {
      env.table.db.middlewareStack.remove('conflict-once');
    }
    const after = await conversationOf(ws);
    expect(after.messageCount).toBe(2);
    expect(after.updatedAt >= between! ? 'never back' : `moved back from ${between} to ${after.updatedAt}`).toBe('never back');
  });

  it('never moves back: a late message’s change, then the customer’s next message written before it was recorded', async () => {
    const ws = await sendingWorkspace(env.table);
    await inbound(ws, 'wamid.m2', secondsAgo(20));
    await inbound(ws, 'wamid.m1', secondsAgo(30));
    const watermark = (await conversationOf(ws)).updatedAt;

    await inbound(ws, 'wamid.m3', secondsAgo(10));
    const after = await conversationOf(ws);
    expect(after).toMatchObject({ messageCount: 3, unreadCount: 3, lastMessagePreview: 'wamid.m3' });
    expect(after.updatedAt >= watermark ? 'not before the watermark' : `moved back from ${watermark} to ${after.updatedAt}`).toBe('not before the watermark');
  });
});

describe('a conversation’s contact name', () => {
  it('shows the contact’s current WhatsApp profile name after they change it', async () => {
    const ws = await sendingWorkspace(env.table);
    await inbound(ws, 'wamid.name.1', '2026-10-01T10:00:00.000Z', text('Halo'), 'Sheena');
    await inbound(ws, 'wamid.name.2', '2026-10-01T11:00:00.000Z', text('Masih ada?'), 'Sheena Nelson');
    expect(await conversationOf(ws)).toMatchObject({ messageCount: 2, contactName: 'Sheena Nelson' });
    // A profile name from an older message delivered late is not the current one.
    await inbound(ws, 'wamid.name.0', '2026-10-01T09:00:00.000Z', text('Pagi'), 'Sheena N.');
    expect(await conversationOf(ws)).toMatchObject({ messageCount: 3, contactName: 'Sheena Nelson' });
  });

  it('keeps the name the newer send gave when an older send commits after it', async () => {
    const ws = await sendingWorkspace(env.table);
    await send(ws, '081234567890', 'shipped', '2026-10-01T10:00:00.900Z', 'Budi Santoso');
    await send(ws, '081234567890', 'confirmed', '2026-10-01T10:00:00.100Z', 'budi old');
    expect(await conversationOf(ws)).toMatchObject({ messageCount: 2, lastMessageAt: '2026-10-01T10:00:00.900Z', contactName: 'Budi Santoso' });
  });

  it('keeps the name a sender gave over the profile’s, before and after it', async () => {
    const ws = await sendingWorkspace(env.table);
    await inbound(ws, 'wamid.name.1', '2026-10-01T10:00:00.000Z', text('Halo'), 'sheena123');
    await send(ws, '081234567890', 'A-1', '2026-10-01T10:01:00.000Z', 'Sheena Nelson');
    await inbound(ws, 'wamid.name.2', '2026-10-01T10:02:00.000Z', text('Terima kasih'), 'sheena_n');
    expect(await conversationOf(ws)).toMatchObject({ messageCount: 3, contactName: 'Sheena Nelson' });
  });
});

describe('WhatsApp’s notices', () => {
  it('are never the preview once the conversation has a message, even one older than the notice, delivered after it', async () => {
    const ws = await sendingWorkspace(env.table);
    const notice = 'User Sari changed from 6281234567890 to 6281234567899';
    await inbound(ws, 'wamid.sys.1', '2026-10-01T10:00:20.000Z', { kind: 'notice', type: 'system', text: notice, newPhone: null, newUserId: null, previousUserId: null });
    await inbound(ws, 'wamid.msg.1', '2026-10-01T10:00:10.000Z', text('Pesanan saya di mana?'));
    const conversation = await conversationOf(ws);
    const history = await conversationHistory(ws, conversation.id, { limit: 20 }, env.table);
    expect(history.items.map((message) => message.type)).toEqual(['system', 'text']);
    expect(await getConversation(ws, conversation.id, env.table)).toMatchObject({
      messageCount: 1,
      unreadCount: 1,
      lastMessagePreview: 'Pesanan saya di mana?',
      lastMessageAt: '2026-10-01T10:00:10.999Z',
    });
  });
});

describe('a Mexican customer, whose WhatsApp id keeps the old mobile 1 (5215512345678)', () => {
  const mexicanCustomerWrote = async () => {
    const ws = await sendingWorkspace(env.table);
    await recordInboundMessage(
      { workspaceId: ws, from: { phone: '5215512345678', userId: null }, providerMessageId: 'wamid.mx.1', occurredAt: '2026-10-01T10:00:00.000Z', content: text('Hola'), contactName: 'Lupita' },
      env.table,
    );
    return ws;
  };

  it('is found by the contactPhone the API shows, and by the number written without the 1', async () => {
    const ws = await mexicanCustomerWrote();
    const [shown] = (await listConversations(ws, { limit: 20 }, env.table)).items;
    expect(shown).toMatchObject({ contactPhone: '+525512345678', lastMessagePreview: 'Hola' });
    for (const phone of [shown!.contactPhone!, '+52 1 55 1234 5678', '+52 55 1234 5678']) {
      expect((await listConversations(ws, { phone, limit: 20 }, env.table)).items.map((conversation) => conversation.id)).toEqual([shown!.id]);
    }
  });

  it('is answered in the same conversation at that contactPhone', async () => {
    const ws = await mexicanCustomerWrote();
    const [shown] = (await listConversations(ws, { limit: 20 }, env.table)).items;
    await send(ws, shown!.contactPhone!, 'MX-1', '2026-10-01T10:01:00.000Z');
    expect(await getConversation(ws, shown!.id, env.table)).toMatchObject({ messageCount: 2, inboundCount: 1, outboundCount: 1 });
  });
});

describe('an Argentine customer, written +54 11 … by the integration and 549 11 … by WhatsApp (decision 208)', () => {
  // A review: the send was stored under +541123456789, the reply under +5491123456789; two
  // conversations, and the one the integration finds by the number it sends to had no reply.
  const waId = '5491123456789';
  /** The customer's reply, as Meta's webhook reference documents a text message. */
  const reply = (ws: string) =>
    whatsAppEnvelope(
      'messages',
      {
        messaging_product: 'whatsapp',
        metadata: { display_phone_number: '15550783881', phone_number_id: `sandbox:${ws}` },
        contacts: [{ profile: { name: 'Lucía' }, wa_id: waId }],
        messages: [{ from: waId, id: `wamid.HBgNNTQ5MTEyMzQ1Njc4ORUCABIYIDQ.${ws}`, timestamp: '1790848860', type: 'text', text: { body: 'Gracias, ya llegó' } }],
      },
      '102290129340398',
    );

  it('files the reply in the conversation of the send it answers, found by the number written either way', async () => {
    const ws = await sendingWorkspace(env.table);
    await send(ws, '+54 11 2345 6789', 'AR-1', '2026-10-01T10:00:00.000Z');
    expect(await applyProviderReports(reply(ws), env.table)).toMatchObject({ inbound: 1 });

    const { items } = await listConversations(ws, { phone: '+54 11 2345 6789', limit: 20 }, env.table);
    expect(items).toEqual([expect.objectContaining({ contactPhone: '+541123456789', messageCount: 2, inboundCount: 1, lastMessagePreview: 'Gracias, ya llegó' })]);
    for (const phone of ['+54 9 11 2345 6789', '+5491123456789']) {
      expect((await listConversations(ws, { phone, limit: 20 }, env.table)).items.map((conversation) => conversation.id)).toEqual([items[0]!.id]);
    }
  });
});
