import { randomUUID } from 'node:crypto';
import { recordInboundMessage } from '../../lambdas/domain/conversations/inbound-message';
import { getConversation, listConversations } from '../../lambdas/domain/conversations/read-conversations';
import { saveWorkspace } from '../../lambdas/domain/workspaces/workspace-repository';
import { useTableAndQueues } from '../support/sqs';

const env = useTableAndQueues();

const inbound = (ws: string, id: string, occurredAt: string, contactName: string | null = null) =>
  recordInboundMessage(
    { workspaceId: ws, from: { phone: '6281234567890', userId: null }, providerMessageId: id, occurredAt, content: { kind: 'message', type: 'text', text: id, payload: null, media: null }, contactName },
    env.table,
  );

describe('a conversation’s updatedAt against DynamoDB Local', () => {
  // A review: a customer's message WhatsApp delivered late, older than the conversation's last one,
  // raised its counts and filled its contact name, and left updatedAt where it was.
  it('moves when a late, older message changes the conversation’s counts, and its last message stays the newer one', async () => {
    const ws = `ws-${randomUUID().slice(0, 8)}`;
    await saveWorkspace({ id: ws, name: ws, rupiahPerCredit: 150 }, new Date(), env.table);
    const firstWrittenFrom = new Date().toISOString();
    expect(await inbound(ws, 'wamid.newer', '2026-10-01T10:00:10.000Z')).toBe(true);
    const [before] = (await listConversations(ws, { limit: 20 }, env.table)).items;
    expect(before).toMatchObject({ messageCount: 1, contactName: null, lastMessageAt: '2026-10-01T10:00:10.999Z' });
    // When the change was recorded, not the message's own time (a late message's change may be newer than that).
    expect(before!.updatedAt >= firstWrittenFrom).toBe(true);

    const writtenFrom = new Date().toISOString();
    expect(await inbound(ws, 'wamid.older', '2026-10-01T10:00:05.000Z', 'Budi')).toBe(true);
    const after = await getConversation(ws, before!.id, env.table);

    expect(after).toMatchObject({ messageCount: 2, inboundCount: 2, unreadCount: 2, contactName: 'Budi', lastMessageAt: '2026-10-01T10:00:10.999Z', lastMessagePreview: 'wamid.newer' });
    expect(after.updatedAt >= writtenFrom).toBe(true);
  });
});
