import { randomUUID } from 'node:crypto';
import { GetCommand, PutCommand } from '@aws-sdk/lib-dynamodb';
import { conversationHistory, listConversations } from '../../lambdas/domain/conversations/read-conversations';
import { getDispatch } from '../../lambdas/domain/messages/dispatch-repository';
import { sendTemplateMessage } from '../../lambdas/domain/messages/send-message';
import { saveTemplate } from '../../lambdas/domain/templates/template-repository';
import { saveWorkspace } from '../../lambdas/domain/workspaces/workspace-repository';
import { keys } from '../../lambdas/shared/table';
import { template, TEMPLATE_ID } from '../support/send-fixtures';
import { useTableAndQueues } from '../support/sqs';

const env = useTableAndQueues();

describe('upgrade: a dispatch written by the first release that sent (9be42c4)', () => {
  it('does not make its conversation’s history unreadable', async () => {
    const ws = `ws-${randomUUID().slice(0, 8)}`;
    await saveWorkspace({ id: ws, name: ws, rupiahPerCredit: 150 }, new Date(), env.table);
    await saveTemplate(ws, template, env.table);
    const { dispatchId } = await sendTemplateMessage(
      { workspaceId: ws, apiClient: { id: randomUUID(), name: 'k' }, to: '081234567890', templateId: TEMPLATE_ID, variables: { name: 'Budi', order: 'A-1' }, tagIds: [], trackingTags: [], now: new Date('2026-10-01T00:00:00.000Z') },
      { store: env.table, queue: env.queues },
    );
    const { Item: current } = await env.table.db.send(new GetCommand({ TableName: env.table.tableName, Key: keys.dispatch(dispatchId) }));
    const rest = Object.fromEntries(Object.entries(current!).filter(([name]) => !['bodyParameters', 'sequence', 'gsi4pk', 'gsi4sk'].includes(name)));
    const [conversation] = (await listConversations(ws, { phone: '081234567890', limit: 1 }, env.table)).items;
    await env.table.db.send(
      new PutCommand({
        TableName: env.table.tableName,
        Item: { ...rest, contactName: null, templateVersionId: template.versions[0]!.id, variables: { name: 'Budi', order: 'A-1' }, renderedText: 'Halo Budi, pesanan A-1 sudah dikirim.', conversationId: conversation!.id, sentAt: null, deliveredAt: null, failureCode: null },
      }),
    );
    const history = await conversationHistory(ws, conversation!.id, { limit: 20 }, env.table);
    expect(history.items).toEqual([expect.objectContaining({ dispatchId, direction: 'outbound', status: 'queued' })]);
    expect(await getDispatch(ws, dispatchId, env.table)).toEqual(expect.objectContaining({ bodyParameters: [], sequence: 0 }));
  });
});
