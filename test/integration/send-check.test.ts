import { randomUUID } from 'node:crypto';
import { GetCommand, PutCommand } from '@aws-sdk/lib-dynamodb';
import { claimDispatch } from '../../lambdas/domain/delivery/delivery-attempt';
import { applyStatus } from '../../lambdas/domain/delivery/dispatch-status';
import { conversationMessageWrites } from '../../lambdas/domain/conversations/conversation-item';
import { checkSend } from '../../lambdas/domain/delivery/send-check';
import { sendTemplateMessage } from '../../lambdas/domain/messages/send-message';
import { saveTemplate } from '../../lambdas/domain/templates/template-repository';
import { saveWorkspace } from '../../lambdas/domain/workspaces/workspace-repository';
import { keys } from '../../lambdas/shared/table';
import { transactWrite } from '../../lambdas/shared/writes';
import { template, TEMPLATE_ID, WIDE_TEMPLATE_ID, wideTemplate, wideVariables } from '../support/send-fixtures';
import { useTableAndQueues } from '../support/sqs';

/**
 * Send-check on DynamoDB Local: it reads the number's conversation (decision 115), so what the
 * answer depends on (the template, the day, the status, the workspace) is read as a user would
 * see it, and dispatches written with the index entries of earlier releases still answer.
 */
const env = useTableAndQueues();

async function workspace(): Promise<string> {
  const ws = `ws-${randomUUID().slice(0, 8)}`;
  await saveWorkspace({ id: ws, name: ws, rupiahPerCredit: 150 }, new Date(), env.table);
  await saveTemplate(ws, template, env.table);
  await saveTemplate(ws, wideTemplate, env.table);
  return ws;
}

const send = async (ws: string, to: string, templateId: string, at: string) => {
  const answer = await sendTemplateMessage(
    { workspaceId: ws, apiClient: { id: randomUUID(), name: 'k' }, to, templateId, variables: templateId === TEMPLATE_ID ? { name: 'Budi', order: '1' } : wideVariables, tagIds: [], trackingTags: [], now: new Date(at) },
    { store: env.table, queue: env.queues },
  );
  return answer.dispatchId;
};

const fail = async (dispatchId: string) => {
  await claimDispatch(dispatchId, new Date(), env.table);
  expect(await applyStatus(dispatchId, { to: 'failed', event: 'REJECTED', failureCode: '131026', occurredAt: new Date().toISOString() }, env.table)).toBe(true);
};

describe('send-check against DynamoDB Local', () => {
  it('answers the newest dispatch of the template to the number, whatever way the number is written, passing over other templates', async () => {
    const ws = await workspace();
    await send(ws, '081234567890', TEMPLATE_ID, '2026-10-01T01:00:00.000Z');
    const newest = await send(ws, '+62 812-3456-7890', TEMPLATE_ID, '2026-10-02T01:00:00.000Z');
    await send(ws, '081234567890', WIDE_TEMPLATE_ID, '2026-10-03T01:00:00.000Z');

    for (const phone of ['081234567890', '6281234567890']) {
      expect(await checkSend(ws, { phone, templateId: TEMPLATE_ID }, env.table)).toEqual({ sent: true, dispatchId: newest, submittedAt: '2026-10-02T01:00:00.000Z' });
    }
    expect(await checkSend(ws, { phone: '081299998888', templateId: TEMPLATE_ID }, env.table)).toEqual({ sent: false, dispatchId: null, submittedAt: null });
  });

  it('passes over failed dispatches to the newest one that was not', async () => {
    const ws = await workspace();
    const sent = await send(ws, '081234567890', TEMPLATE_ID, '2026-10-01T01:00:00.000Z');
    await fail(await send(ws, '081234567890', TEMPLATE_ID, '2026-10-02T01:00:00.000Z'));
    await fail(await send(ws, '081234567890', TEMPLATE_ID, '2026-10-03T01:00:00.000Z'));

    expect(await checkSend(ws, { phone: '081234567890', templateId: TEMPLATE_ID }, env.table)).toEqual({ sent: true, dispatchId: sent, submittedAt: '2026-10-01T01:00:00.000Z' });
    expect(await checkSend(ws, { phone: '081234567890', templateId: TEMPLATE_ID, date: '2026-10-03' }, env.table)).toEqual({ sent: false, dispatchId: null, submittedAt: null });
  });

  it('with a date, looks only inside that WIB day (UTC+7), edges included and excluded', async () => {
    const ws = await workspace();
    // 2026-10-05 in WIB runs from 2026-10-04T17:00Z up to, not including, 2026-10-05T17:00Z.
    const first = await send(ws, '081234567890', TEMPLATE_ID, '2026-10-04T17:00:00.000Z');
    await send(ws, '081234567890', TEMPLATE_ID, '2026-10-05T17:00:00.000Z');

    expect(await checkSend(ws, { phone: '081234567890', templateId: TEMPLATE_ID, date: '2026-10-05' }, env.table)).toEqual({ sent: true, dispatchId: first, submittedAt: '2026-10-04T17:00:00.000Z' });
    expect(await checkSend(ws, { phone: '081234567890', templateId: TEMPLATE_ID, date: '2026-10-04' }, env.table)).toEqual({ sent: false, dispatchId: null, submittedAt: null });
  });

  it('never answers with another workspace’s dispatch', async () => {
    const mine = await workspace();
    const theirs = await workspace();
    await send(theirs, '081234567890', TEMPLATE_ID, '2026-10-01T01:00:00.000Z');

    expect(await checkSend(mine, { phone: '081234567890', templateId: TEMPLATE_ID }, env.table)).toEqual({ sent: false, dispatchId: null, submittedAt: null });
  });

  it('finds dispatches whatever index entries they were written with: before the number index (gsi1) and on it (gsi3)', async () => {
    const ws = await workspace();
    const beforeNumberIndex = await send(ws, '081234567890', TEMPLATE_ID, '2026-09-01T01:00:00.000Z');
    await rewrittenWith(beforeNumberIndex, { gsi1pk: `WS#${ws}#P#+6281234567890#T#${TEMPLATE_ID}`, gsi1sk: '2026-09-01T01:00:00.000Z' });
    expect(await checkSend(ws, { phone: '081234567890', templateId: TEMPLATE_ID }, env.table)).toEqual({ sent: true, dispatchId: beforeNumberIndex, submittedAt: '2026-09-01T01:00:00.000Z' });

    const onNumberIndex = await send(ws, '081234567890', TEMPLATE_ID, '2026-09-02T01:00:00.000Z');
    await rewrittenWith(onNumberIndex, { gsi3pk: `WS#${ws}#P#+6281234567890`, gsi3sk: `2026-09-02T01:00:00.000Z#${TEMPLATE_ID}` });
    expect(await checkSend(ws, { phone: '081234567890', templateId: TEMPLATE_ID }, env.table)).toEqual({ sent: true, dispatchId: onNumberIndex, submittedAt: '2026-09-02T01:00:00.000Z' });
    expect(await checkSend(ws, { phone: '081234567890', templateId: TEMPLATE_ID, date: '2026-09-01' }, env.table)).toMatchObject({ dispatchId: beforeNumberIndex });
  });

  it('passes over the customer’s messages in the conversation, more than a page of them after the send', async () => {
    const ws = await workspace();
    const sent = await send(ws, '081234567890', TEMPLATE_ID, '2026-10-01T01:00:00.000Z');
    await customerWrote(ws, '+6281234567890', 101, '2026-10-01T02:00:00.000Z');

    expect(await checkSend(ws, { phone: '081234567890', templateId: TEMPLATE_ID }, env.table)).toEqual({ sent: true, dispatchId: sent, submittedAt: '2026-10-01T01:00:00.000Z' });
    expect(await checkSend(ws, { phone: '081234567890', templateId: WIDE_TEMPLATE_ID }, env.table)).toEqual({ sent: false, dispatchId: null, submittedAt: null });
  });
});

/** Sets index attributes on a dispatch as an earlier release wrote them (decisions 100, 115). */
async function rewrittenWith(dispatchId: string, indexAttributes: Record<string, string>) {
  const { Item } = await env.table.db.send(new GetCommand({ TableName: env.table.tableName, Key: keys.dispatch(dispatchId) }));
  await env.table.db.send(new PutCommand({ TableName: env.table.tableName, Item: { ...Item, ...indexAttributes } }));
}

/** `count` text messages from the customer into their conversation, a second apart from `from`. */
async function customerWrote(ws: string, contactPhone: string, count: number, from: string) {
  for (let i = 0; i < count; i++) {
    const createdAt = new Date(Date.parse(from) + i * 1_000).toISOString();
    const writes = conversationMessageWrites(
      { workspaceId: ws, channel: 'whatsapp', contactPhone, contactName: null, messageId: `wamid.in-${i}`, direction: 'inbound', type: 'text', text: `reply ${i}`, createdAt },
      'latest',
    );
    expect(await transactWrite(env.table, writes)).toEqual({ committed: true });
  }
}
