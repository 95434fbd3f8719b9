import { randomUUID } from 'node:crypto';
import { QueryCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { deliverDispatch } from '../../lambdas/domain/delivery/deliver-dispatch';
import { applyProviderReports } from '../../lambdas/domain/delivery/provider-reports';
import { QUEUED_GRACE_MS, reconcile } from '../../lambdas/domain/delivery/reconcile';
import { getDispatch } from '../../lambdas/domain/messages/dispatch-repository';
import { sendTemplateMessage } from '../../lambdas/domain/messages/send-message';
import { statusWebhook } from '../../lambdas/domain/providers/whatsapp-webhook';
import { listReportDispatches, readAllRows, toDispatchRow } from '../../lambdas/domain/reports/dispatch-list';
import { wibDay } from '../../lambdas/domain/time/wib';
import { accessPatterns, keys, tableDefinition } from '../../lambdas/shared/table';
import { TEMPLATE_ID } from '../support/send-fixtures';
import { acceptingProvider, freshWorkspace } from '../support/report-fixtures';
import { useTableAndQueues } from '../support/sqs';
import { runReportProjection } from '../support/stream-consumer';

/**
 * A dispatch's pending and sent-by-day entries are its report entry on gsi4, which carries only the
 * report row's fields, so the claim, Meta's pricing and the read receipt write nothing to it
 * (decision 104). Entries written before sat on gsi2 as whole copies: the report list and the
 * reconciler still find them, and a dispatch's next move takes its entry out of gsi2.
 */
const env = useTableAndQueues();


const workspace = () => freshWorkspace(env.table);

async function queued(ws: string, at: string): Promise<string> {
  const request = { workspaceId: ws, apiClient: { id: randomUUID(), name: 'k' }, to: '081234567890', templateId: TEMPLATE_ID, variables: { name: 'B', order: '1' }, tagIds: [], trackingTags: ['promo'], now: new Date(at) };
  return (await sendTemplateMessage(request, { store: env.table, queue: env.queues })).dispatchId;
}

/** Sends a queued dispatch; its rollups, which the list's totals read, are the report projection's (decision 113). */
async function send(ws: string, dispatchId: string) {
  await deliverDispatch({ dispatchId, workspaceId: ws, receiveCount: 1, maxReceives: 5 }, { providerFor: () => acceptingProvider, store: env.table });
  await runReportProjection(env.table);
}

async function sentAt(ws: string, at: string): Promise<string> {
  const dispatchId = await queued(ws, at);
  await send(ws, dispatchId);
  return dispatchId;
}

const report = (ws: string, dispatchId: string, status: 'delivered' | 'read') =>
  applyProviderReports(
    statusWebhook(`sandbox:${ws}`, [
      {
        id: `wamid.${dispatchId}`,
        status,
        timestamp: String(Math.floor(Date.now() / 1000)),
        biz_opaque_callback_data: dispatchId,
        pricing: { billable: true, pricing_model: 'PMP', category: 'marketing', type: 'regular' },
      },
    ]),
    env.table,
  );

const itemOf = async (dispatchId: string) => (await env.table.scanAll()).find((item) => item.pk === keys.dispatch(dispatchId).pk && item.sk === 'DSP')!;

/** Puts a dispatch's entry on gsi2 under the same keys, as the code before decision 104 kept it. */
async function asWrittenBefore(dispatchId: string) {
  const { gsi2, gsi4 } = tableDefinition.indexes;
  const item = await itemOf(dispatchId);
  await env.table.db.send(
    new UpdateCommand({
      TableName: env.table.tableName,
      Key: keys.dispatch(dispatchId),
      UpdateExpression: `SET ${gsi2.partitionKey} = :pk, ${gsi2.sortKey} = :sk REMOVE ${gsi4.partitionKey}, ${gsi4.sortKey}`,
      ExpressionAttributeValues: { ':pk': item[gsi4.partitionKey], ':sk': item[gsi4.sortKey] },
    }),
  );
}

const indexAttributesOf = async (dispatchId: string) =>
  Object.fromEntries(Object.entries(await itemOf(dispatchId)).filter(([name]) => /^gsi[124]/.test(name)));

const list = async (ws: string, page: number, limit: number) => {
  const result = await listReportDispatches(ws, { startDate: '2026-06-01', endDate: '2026-06-30', page, limit, selector: { scope: 'WORKSPACE' } }, env.table);
  return { total: result.pagination.totalItems, rows: await readAllRows(result) };
};

describe('report entries', () => {
  it('carry the report row’s fields and nothing the claim, a price or a read receipt changes', async () => {
    const ws = await workspace();
    const createdAt = '2026-06-02T01:00:00.000Z';
    const dispatchId = await sentAt(ws, createdAt);
    const entryOf = async () => {
      const { Items = [] } = await env.table.db.send(new QueryCommand({ TableName: env.table.tableName, ...accessPatterns.sentOnDay(ws, wibDay(new Date(createdAt))) }));
      return Items;
    };

    const [entry] = await entryOf();
    const { gsi4 } = tableDefinition.indexes;
    expect(Object.keys(entry!).sort()).toEqual(['pk', 'sk', gsi4.partitionKey, gsi4.sortKey, ...gsi4.nonKeyAttributes.filter((name) => name !== 'deliveredAt' && name !== 'failureCode')].sort());
    expect(await indexAttributesOf(dispatchId)).toEqual({ gsi4pk: `WS#${ws}#D#2026-06-02`, gsi4sk: `${createdAt}#${dispatchId}` });
    expect(await list(ws, 1, 10)).toEqual({ total: 1, rows: [toDispatchRow((await getDispatch(ws, dispatchId, env.table))!)] });
    expect((await list(ws, 1, 10)).rows[0]).toMatchObject({ status: 'SENT', deliveredAt: null });

    await report(ws, dispatchId, 'delivered');
    const [delivered] = await entryOf();
    expect(delivered).toEqual({ ...entry, deliveredAt: expect.any(String) });
    expect((await list(ws, 1, 10)).rows).toEqual([toDispatchRow((await getDispatch(ws, dispatchId, env.table))!)]);
    expect((await list(ws, 1, 10)).rows[0]).toMatchObject({ status: 'DELIVERED', deliveredAt: delivered!.deliveredAt });

    // The read receipt and Meta's pricing change the dispatch, not its entry.
    await report(ws, dispatchId, 'read');
    expect(await getDispatch(ws, dispatchId, env.table)).toMatchObject({ readAt: expect.any(String), pricing: { billable: true, category: 'marketing', pricingModel: 'PMP' } });
    expect(await entryOf()).toEqual([delivered]);
  });

  it('of both shapes make one WORKSPACE list newest first, paged across them and across days', async () => {
    const ws = await workspace();
    const times = ['2026-06-03T01:00:00.000Z', '2026-06-04T01:00:00.000Z', '2026-06-04T02:00:00.000Z', '2026-06-04T03:00:00.000Z', '2026-06-05T01:00:00.000Z'];
    const ids: string[] = [];
    for (const at of times) ids.push(await sentAt(ws, at));
    // The first, the third and the fourth were sent before decision 104.
    for (const i of [0, 2, 3]) await asWrittenBefore(ids[i]!);
    const newestFirst = [...ids].reverse();
    const idsOf = async (page: number, limit: number) => {
      const { total, rows } = await list(ws, page, limit);
      return { total, ids: rows.map((row) => row.dispatchId) };
    };

    expect(await Promise.all([1, 2, 3].map((page) => idsOf(page, 2)))).toEqual([
      { total: 5, ids: newestFirst.slice(0, 2) },
      { total: 5, ids: newestFirst.slice(2, 4) },
      { total: 5, ids: newestFirst.slice(4, 5) },
    ]);
    // Page 2 of 3 rows starts inside 2026-06-04 (WIB), where both shapes sit side by side.
    expect(await idsOf(2, 3)).toEqual({ total: 5, ids: newestFirst.slice(3, 5) });
    // A row read from a whole copy is the row its entry would have given.
    const { rows } = await list(ws, 1, 10);
    expect(rows).toEqual(await Promise.all(newestFirst.map(async (id) => toDispatchRow((await getDispatch(ws, id, env.table))!))));
  });

  it('of a dispatch pending before decision 104 moves out of gsi2 when it is sent', async () => {
    const ws = await workspace();
    const createdAt = '2026-06-06T01:00:00.000Z';
    const dispatchId = await queued(ws, createdAt);
    await asWrittenBefore(dispatchId);
    expect(Object.keys(await indexAttributesOf(dispatchId)).sort()).toEqual(['gsi2pk', 'gsi2sk']);

    await send(ws, dispatchId);
    expect(await indexAttributesOf(dispatchId)).toEqual({ gsi4pk: `WS#${ws}#D#2026-06-06`, gsi4sk: `${createdAt}#${dispatchId}` });
    expect((await list(ws, 1, 10)).rows.map((row) => row.dispatchId)).toEqual([dispatchId]);
  });

  it('pending in either index are found by the reconciler and queued again as report entries', async () => {
    const ws = await workspace();
    const createdAt = new Date(Date.now() - QUEUED_GRACE_MS - 60_000).toISOString();
    const before = await queued(ws, createdAt);
    const after = await queued(ws, createdAt);
    await asWrittenBefore(before);
    await env.queues.receiveAll(); // their queue messages were lost

    const now = new Date();
    expect((await reconcile(now, env.table, env.queues)).requeued).toBe(2);
    expect(await env.queues.receiveAll()).toEqual(expect.arrayContaining([{ dispatchId: before, workspaceId: ws }, { dispatchId: after, workspaceId: ws }]));
    for (const dispatchId of [before, after]) {
      expect(await indexAttributesOf(dispatchId)).toEqual({ gsi4pk: expect.stringMatching(/^PENDING#\d$/), gsi4sk: `${now.toISOString()}#${dispatchId}` });
    }
    // Moved forward: the next run leaves them alone.
    expect((await reconcile(now, env.table, env.queues)).requeued).toBe(0);
  });

  it('left on a sent day by a function from before decision 104 that took a late failure are not listed', async () => {
    const ws = await workspace();
    const createdAt = '2026-06-07T01:00:00.000Z';
    const kept = await sentAt(ws, createdAt);
    const failed = await sentAt(ws, '2026-06-07T02:00:00.000Z');
    // The webhook function not yet updated: its late failure removes the gsi2 entry the dispatch does not have.
    await env.table.db.send(
      new UpdateCommand({
        TableName: env.table.tableName,
        Key: keys.dispatch(failed),
        UpdateExpression: 'SET #status = :failed, failureCode = :code REMOVE gsi2pk, gsi2sk',
        ExpressionAttributeNames: { '#status': 'status' },
        ExpressionAttributeValues: { ':failed': 'failed', ':code': '131047' },
      }),
    );
    expect(Object.keys(await indexAttributesOf(failed)).sort()).toEqual(['gsi4pk', 'gsi4sk']);
    expect((await list(ws, 1, 10)).rows.map((row) => row.dispatchId)).toEqual([kept]);
  });

  it('left pending by a function from before decision 104 that sent the dispatch are dropped by the reconciler, and its sent entry is left', async () => {
    const ws = await workspace();
    const createdAt = new Date(Date.now() - QUEUED_GRACE_MS - 60_000).toISOString();
    const dispatchId = await queued(ws, createdAt);
    await env.queues.receiveAll();
    // The deliver function not yet updated: its sent move sets the gsi2 sent-by-day entry, as it always did.
    const { gsi2 } = tableDefinition.indexes;
    await env.table.db.send(
      new UpdateCommand({
        TableName: env.table.tableName,
        Key: keys.dispatch(dispatchId),
        UpdateExpression: `SET #status = :sent, sentAt = :at, reportedAt = :at, ${gsi2.partitionKey} = :pk, ${gsi2.sortKey} = :sk`,
        ExpressionAttributeNames: { '#status': 'status' },
        ExpressionAttributeValues: { ':sent': 'sent', ':at': createdAt, ':pk': `WS#${ws}#D#${wibDay(new Date(createdAt))}`, ':sk': `${createdAt}#${dispatchId}` },
      }),
    );
    expect(Object.keys(await indexAttributesOf(dispatchId)).sort()).toEqual(['gsi2pk', 'gsi2sk', 'gsi4pk', 'gsi4sk']);

    const first = await reconcile(new Date(), env.table, env.queues);
    expect(first).toMatchObject({ requeued: 0, droppedEntries: 1 });
    expect(await env.queues.receiveAll()).toEqual([]);
    expect(Object.keys(await indexAttributesOf(dispatchId)).sort()).toEqual(['gsi2pk', 'gsi2sk']);
    expect(await getDispatch(ws, dispatchId, env.table)).toMatchObject({ status: 'sent', sequence: 1 });
    expect((await reconcile(new Date(), env.table, env.queues)).droppedEntries).toBe(0);
  });
});
