import { randomUUID } from 'node:crypto';
import { recordInboundMessage } from '../../lambdas/domain/conversations/inbound-message';
import { claimDispatch } from '../../lambdas/domain/delivery/delivery-attempt';
import { applyStatus } from '../../lambdas/domain/delivery/dispatch-status';
import { conversationHistory, getConversation, listConversations } from '../../lambdas/domain/conversations/read-conversations';
import { sendTemplateMessage } from '../../lambdas/domain/messages/send-message';
import { saveTemplate } from '../../lambdas/domain/templates/template-repository';
import { saveWorkspace } from '../../lambdas/domain/workspaces/workspace-repository';
import { template, TEMPLATE_ID } from '../support/send-fixtures';
import { useTableAndQueues } from '../support/sqs';
import { PutCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { keys } from '../../lambdas/shared/table';
import { handler as historyHandler } from '../../lambdas/handlers/conversation-messages';
import { apiKeyItem } from '../support/api-keys';
import { invokeRoute, parseResult } from '../support/events';

const env = useTableAndQueues();

async function workspace(withTemplate = template): Promise<string> {
  const ws = `ws-${randomUUID().slice(0, 8)}`;
  await saveWorkspace({ id: ws, name: ws, rupiahPerCredit: 150 }, new Date(), env.table);
  await saveTemplate(ws, withTemplate, env.table);
  return ws;
}
let clock = Date.parse('2026-10-01T00:00:00.000Z');
const send = (ws: string, to: string, order: string, name = 'Budi') =>
  sendTemplateMessage(
    { workspaceId: ws, apiClient: { id: randomUUID(), name: 'k' }, to, templateId: TEMPLATE_ID, variables: { name, order }, tagIds: [], trackingTags: [], now: new Date((clock += 1_000)) },
    { store: env.table, queue: env.queues },
  );

describe('conversations against DynamoDB Local', () => {
  it('finds one conversation per contact, whatever way the number is written', async () => {
    const ws = await workspace();
    await send(ws, '081234567890', '1');
    await send(ws, '+62 812-3456-7890', '2');
    await send(ws, '081299998888', '3');
    for (const phone of ['081234567890', '6281234567890', '+62 812-3456-7890']) {
      const { items } = await listConversations(ws, { phone, limit: 20 }, env.table);
      expect(items).toEqual([expect.objectContaining({ contactPhone: '+6281234567890', messageCount: 2, outboundCount: 2 })]);
    }
    const all = await listConversations(ws, { limit: 20 }, env.table);
    expect(all.items.map((conversation) => conversation.contactPhone)).toEqual(['+6281299998888', '+6281234567890']);
  });

  it('reads a preview written before previews were cut by characters, ending in half an emoji, as valid text', async () => {
    const ws = await workspace();
    await send(ws, '081234567812', '1');
    const [conversation] = (await listConversations(ws, { limit: 1 }, env.table)).items;
    // As a cut at 120 UTF-16 units left it: the emoji's first half alone.
    await env.table.db.send(new UpdateCommand({ TableName: env.table.tableName, Key: keys.conversation(ws, conversation!.id), UpdateExpression: 'SET lastMessagePreview = :p', ExpressionAttributeValues: { ':p': `Halo ${'😀'.repeat(57)}\ud83d` } }));
    for (const read of [await getConversation(ws, conversation!.id, env.table), (await listConversations(ws, { limit: 1 }, env.table)).items[0]!]) {
      expect(read.lastMessagePreview).toBe(`Halo ${'😀'.repeat(57)}\ufffd`);
    }
  });

  it('walks a history of more than three pages with no duplicates or gaps while new messages keep arriving', async () => {
    const ws = await workspace();
    for (let i = 0; i < 10; i++) await send(ws, '081234567890', `old-${i}`);
    const [conversation] = (await listConversations(ws, { phone: '081234567890', limit: 1 }, env.table)).items;
    const seen: string[] = [];
    let cursor: string | undefined;
    let pages = 0;
    do {
      const page = await conversationHistory(ws, conversation!.id, { limit: 3, ...(cursor ? { cursor } : {}) }, env.table);
      seen.push(...page.items.map((message) => message.text!));
      cursor = page.nextCursor ?? undefined;
      pages += 1;
      // A new message lands at the top between pages; the walk downwards is not disturbed.
      await send(ws, '081234567890', `new-${pages}`);
    } while (cursor);
    expect(pages).toBeGreaterThan(3);
    expect(seen).toEqual(Array.from({ length: 10 }, (_, i) => `Halo Budi, pesanan old-${9 - i} sudah dikirim.`));
  });

  it('ends a history page early, with its cursor, where its messages would pass Lambda’s 6 MB answer', async () => {
    // A one-line value may hold control characters (a customer's text may too), and a body that
    // repeats a placeholder renders it to 120 KB: one byte stored is six in the JSON body (`\u0001`)
    // and seven in Lambda's proxy payload, so the 1 MB one Query reads would be over 6 MB of answer,
    // a 502 at the default `limit` (decision 229).
    const ws = await workspace({ ...template, versions: [{ ...template.versions[0]!, body: `${'{{name}} '.repeat(29)}{{order}}` }] });
    const key = 'msk_test_history_size_01';
    await env.table.db.send(new PutCommand({ TableName: env.table.tableName, Item: apiKeyItem(key, { workspaceId: ws, scopes: ['messages:read'] }) }));
    for (let i = 0; i < 20; i++) await send(ws, '081234567890', `A-${i}`, '\u0001'.repeat(4000));
    const [conversation] = (await listConversations(ws, { phone: '081234567890', limit: 1 }, env.table)).items;

    const orders: string[] = [];
    const sizes: number[] = [];
    let cursor: string | undefined;
    do {
      const result = await invokeRoute('conversationMessages', historyHandler, { apiKey: key, pathParameters: { conversationId: conversation!.id }, query: cursor ? { cursor } : {} });
      const { status, body } = parseResult(result);
      expect(status).toBe(200);
      const items = body.items as { text: string }[];
      sizes.push(items.length);
      orders.push(...items.map((message) => message.text.split(' ').at(-1)!));
      cursor = (body.nextCursor as string | null) ?? undefined;
    } while (cursor);
    expect(sizes[0]).toBeGreaterThan(0);
    expect(sizes[0]).toBeLessThan(20);
    expect(orders).toEqual(Array.from({ length: 20 }, (_, i) => `A-${19 - i}`));
  }, 120_000);

  it('shows inbound and outbound messages, outbound ones with their dispatch and its status', async () => {
    const ws = await workspace();
    const { dispatchId } = await send(ws, '081234567890', '1');
    await recordInboundMessage(
      {
        workspaceId: ws,
        from: { phone: '6281234567890', userId: null },
        providerMessageId: 'wamid.in.1',
        occurredAt: new Date((clock += 1_000)).toISOString(),
        content: { kind: 'message', type: 'text', text: 'Makasih', payload: null, media: null },
        contactName: 'Budi',
      },
      env.table,
    );
    const [conversation] = (await listConversations(ws, { phone: '081234567890', limit: 1 }, env.table)).items;
    const history = await conversationHistory(ws, conversation!.id, { limit: 20 }, env.table);
    expect(history).toEqual({
      items: [
        { id: 'wamid.in.1', direction: 'inbound', type: 'text', text: 'Makasih', payload: null, media: null, reaction: null, dispatchId: null, status: null, readAt: null, createdAt: expect.any(String) },
        { id: dispatchId, direction: 'outbound', type: 'template', text: 'Halo Budi, pesanan 1 sudah dikirim.', payload: null, media: null, reaction: null, dispatchId, status: 'queued', readAt: null, createdAt: expect.any(String) },
      ],
      nextCursor: null,
    });
    expect(await getConversation(ws, conversation!.id, env.table)).toMatchObject({ inboundCount: 1, outboundCount: 1, unreadCount: 1, lastMessageDirection: 'inbound', contactName: 'Budi' });
  });

  it('shows a status move in the message’s history and leaves the conversation itself as it was', async () => {
    const ws = await workspace();
    const { dispatchId } = await send(ws, '081234567890', '1');
    const [before] = (await listConversations(ws, { phone: '081234567890', limit: 1 }, env.table)).items;
    await claimDispatch(dispatchId, new Date(), env.table);
    expect(await applyStatus(dispatchId, { to: 'sent', occurredAt: new Date().toISOString() }, env.table)).toBe(true);
    const [after] = (await listConversations(ws, { phone: '081234567890', limit: 1 }, env.table)).items;
    expect(after).toEqual(before);
    const history = await conversationHistory(ws, after!.id, { limit: 1 }, env.table);
    expect(history.items).toEqual([expect.objectContaining({ dispatchId, status: 'sent' })]);
  });

  it('shows another workspace’s conversation as the same 404 as a missing one, and its cursors not at all', async () => {
    const mine = await workspace();
    const theirs = await workspace();
    await send(theirs, '081234567890', '1');
    await send(theirs, '081234567891', '2');
    const [foreign] = (await listConversations(theirs, { phone: '081234567890', limit: 1 }, env.table)).items;

    for (const read of [() => getConversation(mine, foreign!.id, env.table), () => conversationHistory(mine, foreign!.id, { limit: 5 }, env.table)]) {
      await expect(read()).rejects.toMatchObject({ status: 404, message: 'Conversation was not found' });
    }
    await expect(getConversation(mine, randomUUID(), env.table)).rejects.toMatchObject({ status: 404, message: 'Conversation was not found' });
    expect((await listConversations(mine, { phone: '081234567890', limit: 20 }, env.table)).items).toEqual([]);

    const theirCursor = (await listConversations(theirs, { limit: 1 }, env.table)).nextCursor!;
    await expect(listConversations(mine, { limit: 1, cursor: theirCursor }, env.table)).rejects.toMatchObject({ status: 422 });
  });
});
