import { DeleteCommand, PutCommand } from '@aws-sdk/lib-dynamodb';
import { applyProviderReports } from '../../lambdas/domain/delivery/provider-reports';
import { statusWebhook } from '../../lambdas/domain/providers/whatsapp-webhook';
import { listReportDispatches, readAllRows, type DispatchSelector } from '../../lambdas/domain/reports/dispatch-list';
import { indexKeys, keys } from '../../lambdas/shared/table';
import { freshWorkspace, sentDispatch } from '../support/report-fixtures';
import { useTableAndQueues } from '../support/sqs';
import { runReportProjection } from '../support/stream-consumer';

/**
 * A dispatch's tag links live in their tag's partition by creation (decision 102); links written
 * before kept under their dispatch with a gsi2 entry by tag, and the report list and a late failure
 * still find them.
 */
const env = useTableAndQueues();


const workspace = () => freshWorkspace(env.table);

const sentAt = (ws: string, at: string, tags: string[]) => sentDispatch(env, ws, at, tags);

/** Turns a dispatch's link into the shape written before decision 102, exactly as that code wrote it. */
async function asWrittenBefore(ws: string, dispatchId: string, tag: string, createdAt: string) {
  await env.table.db.send(new DeleteCommand({ TableName: env.table.tableName, Key: keys.tagLink(ws, tag, createdAt, dispatchId), ConditionExpression: 'attribute_exists(pk)' }));
  await env.table.db.send(
    new PutCommand({
      TableName: env.table.tableName,
      Item: { ...keys.tagLinkUnderDispatch(dispatchId, tag), ...indexKeys.indexedTagLink(ws, tag, createdAt, dispatchId), entity: 'tagLink', workspaceId: ws, dispatchId, trackingTag: tag, createdAt },
    }),
  );
}

const linksOf = async (dispatchId: string) => (await env.table.scanAll()).filter((item) => item.entity === 'tagLink' && item.dispatchId === dispatchId);

const list = async (ws: string, selector: DispatchSelector, page: number, limit: number) => {
  const result = await listReportDispatches(ws, { startDate: '2026-05-01', endDate: '2026-05-31', page, limit, selector }, env.table);
  return { total: result.pagination.totalItems, ids: (await readAllRows(result)).map((row) => row.dispatchId) };
};

describe('tag links', () => {
  it('are written in their tag’s partition by creation, with no index entry, one per tag', async () => {
    const ws = await workspace();
    const createdAt = '2026-05-03T01:00:00.000Z';
    const dispatchId = await sentAt(ws, createdAt, ['promo', 'vip']);
    expect((await linksOf(dispatchId)).sort((a, b) => String(a.pk).localeCompare(String(b.pk)))).toEqual([
      { pk: `WS#${ws}#TAG#promo`, sk: `${createdAt}#${dispatchId}`, entity: 'tagLink', dispatchId },
      { pk: `WS#${ws}#TAG#vip`, sk: `${createdAt}#${dispatchId}`, entity: 'tagLink', dispatchId },
    ]);
  });

  it('of both shapes make one list newest first, paged across them and across days', async () => {
    const ws = await workspace();
    const times = ['2026-05-02T01:00:00.000Z', '2026-05-03T01:00:00.000Z', '2026-05-03T02:00:00.000Z', '2026-05-03T03:00:00.000Z', '2026-05-03T04:00:00.000Z', '2026-05-04T01:00:00.000Z'];
    const ids: string[] = [];
    for (const at of times) ids.push(await sentAt(ws, at, ['mix']));
    // The first, the second and the fourth were counted before decision 102.
    for (const i of [0, 1, 3]) await asWrittenBefore(ws, ids[i]!, 'mix', times[i]!);
    const newestFirst = [...ids].reverse();

    const one = { trackingTags: ['mix'], match: 'ANY' } as const;
    const pages = await Promise.all([1, 2, 3].map((page) => list(ws, one, page, 2)));
    expect(pages.map((page) => page.total)).toEqual([6, 6, 6]);
    expect(pages.map((page) => page.ids)).toEqual([newestFirst.slice(0, 2), newestFirst.slice(2, 4), newestFirst.slice(4, 6)]);
    expect((await list(ws, one, 1, 100)).ids).toEqual(newestFirst);
    // Page 2 of 3 starts inside 2026-05-03 (WIB), where both shapes sit side by side.
    expect((await list(ws, one, 2, 3)).ids).toEqual(newestFirst.slice(3, 6));
  });

  it('of both shapes serve several tags at once, ANY and ALL', async () => {
    const ws = await workspace();
    const both = await sentAt(ws, '2026-05-05T01:00:00.000Z', ['mix', 'vip']);
    const mixOnly = await sentAt(ws, '2026-05-05T02:00:00.000Z', ['mix']);
    const vipOnly = await sentAt(ws, '2026-05-05T03:00:00.000Z', ['vip']);
    await asWrittenBefore(ws, both, 'mix', '2026-05-05T01:00:00.000Z');
    await asWrittenBefore(ws, vipOnly, 'vip', '2026-05-05T03:00:00.000Z');

    expect(await list(ws, { trackingTags: ['mix', 'vip'], match: 'ANY' }, 1, 10)).toEqual({ total: 3, ids: [vipOnly, mixOnly, both] });
    expect(await list(ws, { trackingTags: ['mix', 'vip'], match: 'ALL' }, 1, 10)).toEqual({ total: 1, ids: [both] });
  });

  it('of either shape are taken back when their dispatch fails after being sent', async () => {
    const ws = await workspace();
    const before = await sentAt(ws, '2026-05-06T01:00:00.000Z', ['promo']);
    const after = await sentAt(ws, '2026-05-06T02:00:00.000Z', ['promo']);
    await asWrittenBefore(ws, before, 'promo', '2026-05-06T01:00:00.000Z');
    const failed = (dispatchId: string) => ({ id: `wamid.${dispatchId}`, status: 'failed', timestamp: String(Math.floor(Date.now() / 1000)), biz_opaque_callback_data: dispatchId, errors: [{ code: 131047 }] });
    await applyProviderReports(statusWebhook(`sandbox:${ws}`, [failed(before), failed(after)]), env.table);
    await runReportProjection(env.table);

    expect(await linksOf(before)).toEqual([]);
    expect(await linksOf(after)).toEqual([]);
    expect(await list(ws, { trackingTags: ['promo'], match: 'ANY' }, 1, 10)).toEqual({ total: 0, ids: [] });
  });
});
