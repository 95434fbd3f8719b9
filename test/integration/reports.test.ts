import { randomUUID } from 'node:crypto';
import { deliverDispatch } from '../../lambdas/domain/delivery/deliver-dispatch';
import { sendTemplateMessage } from '../../lambdas/domain/messages/send-message';
import { ProviderError, type Provider } from '../../lambdas/domain/providers/provider';
import { listReportDispatches, readAllRows, type DispatchSelector } from '../../lambdas/domain/reports/dispatch-list';
import { discoverTrackingTags } from '../../lambdas/domain/reports/tag-discovery';
import { summarizeTrackingTags } from '../../lambdas/domain/reports/tag-summary';
import { rollupShardOfStreamShard } from '../../lambdas/shared/table';
import { TEMPLATE_ID, wideTemplate, WIDE_TEMPLATE_ID, wideVariables } from '../support/send-fixtures';
import { acceptingProvider, freshWorkspace } from '../support/report-fixtures';
import { useTableAndQueues } from '../support/sqs';
import { runReportProjection } from '../support/stream-consumer';

const env = useTableAndQueues();

const refusing: Provider = { send: () => Promise.reject(new ProviderError('permanent', '131026', 'undeliverable')), settle: () => Promise.resolve() };

const workspace = () => freshWorkspace(env.table, [{ ...wideTemplate, displayName: 'Wide' }]);

/**
 * A dispatch created at `at` with `tags`, delivered (counted as sent) unless `provider` refuses;
 * the report projection's stream records spread over `spreadOver` shards if named.
 */
async function sentAt(ws: string, at: string, tags: string[], options: { templateId?: string; provider?: Provider; spreadOver?: string[] } = {}) {
  const templateId = options.templateId ?? TEMPLATE_ID;
  const { dispatchId } = await sendTemplateMessage(
    {
      workspaceId: ws,
      apiClient: { id: randomUUID(), name: 'k' },
      to: '081234567890',
      templateId,
      variables: templateId === TEMPLATE_ID ? { name: 'B', order: '1' } : wideVariables,
      tagIds: [],
      trackingTags: tags,
      now: new Date(at),
    },
    { store: env.table, queue: env.queues },
  );
  await deliverDispatch({ dispatchId, workspaceId: ws, receiveCount: 1, maxReceives: 5 }, { providerFor: () => options.provider ?? acceptingProvider, store: env.table });
  // Its links and rollups are the report projection's (decision 113).
  await runReportProjection(env.table, options.spreadOver ? { spreadOver: options.spreadOver } : {});
  return dispatchId;
}


describe('tracking reports on the rollups', () => {
  it('puts a dispatch on its WIB day: 16:59:59Z is still that day, 17:00:00Z is the next', async () => {
    const ws = await workspace();
    await sentAt(ws, '2026-03-10T16:59:59.000Z', ['edge']);
    await sentAt(ws, '2026-03-10T17:00:00.000Z', ['edge']);

    const tenth = await discoverTrackingTags(ws, { startDate: '2026-03-10', endDate: '2026-03-10', page: 1, limit: 50 }, env.table);
    const eleventh = await discoverTrackingTags(ws, { startDate: '2026-03-11', endDate: '2026-03-11', page: 1, limit: 50 }, env.table);
    expect(tenth.items).toEqual([{ trackingTag: 'edge', dispatchCount: 1 }]);
    expect(eleventh.items).toEqual([{ trackingTag: 'edge', dispatchCount: 1 }]);
    const both = await summarizeTrackingTags(ws, { startDate: '2026-03-10', endDate: '2026-03-11', trackingTags: ['edge'] }, env.table);
    expect(both[0]).toMatchObject({ dispatchCount: 2, credits: 4, amountRupiah: 600 });
  });

  it('counts only SENT or DELIVERED dispatches, per tag and per template, and lists a requested unused tag with zeros', async () => {
    const ws = await workspace();
    await sentAt(ws, '2026-04-01T03:00:00.000Z', ['promo', 'nov']);
    await sentAt(ws, '2026-04-02T03:00:00.000Z', ['promo'], { templateId: WIDE_TEMPLATE_ID });
    await sentAt(ws, '2026-04-02T04:00:00.000Z', ['promo'], { provider: refusing });

    const summary = await summarizeTrackingTags(ws, { startDate: '2026-04-01', endDate: '2026-04-30', trackingTags: ['promo', 'unused', 'promo'] }, env.table);
    expect(summary).toEqual([
      {
        trackingTag: 'promo',
        dispatchCount: 2,
        credits: 4,
        amountRupiah: 600,
        templates: [
          { templateId: TEMPLATE_ID, templateName: 'Order shipped', dispatchCount: 1, credits: 2, amountRupiah: 300 },
          { templateId: WIDE_TEMPLATE_ID, templateName: 'Wide', dispatchCount: 1, credits: 2, amountRupiah: 300 },
        ],
      },
      { trackingTag: 'unused', dispatchCount: 0, credits: 0, amountRupiah: 0, templates: [] },
    ]);
  });

  it('discovers tags with a prefix, most used first, with exact pagination totals', async () => {
    const ws = await workspace();
    for (const [tag, n] of [['camp-a', 3], ['camp-b', 1], ['camp-c', 2], ['other', 1]] as const) {
      for (let i = 0; i < n; i++) await sentAt(ws, `2026-05-0${i + 1}T05:00:00.000Z`, [tag]);
    }
    const page1 = await discoverTrackingTags(ws, { startDate: '2026-05-01', endDate: '2026-05-31', prefix: 'camp-', page: 1, limit: 2 }, env.table);
    const page2 = await discoverTrackingTags(ws, { startDate: '2026-05-01', endDate: '2026-05-31', prefix: 'camp-', page: 2, limit: 2 }, env.table);
    expect(page1).toEqual({
      items: [
        { trackingTag: 'camp-a', dispatchCount: 3 },
        { trackingTag: 'camp-c', dispatchCount: 2 },
      ],
      pagination: { page: 1, limit: 2, totalItems: 3, totalPages: 2 },
    });
    expect(page2.items).toEqual([{ trackingTag: 'camp-b', dispatchCount: 1 }]);
  });

  it('sums each rollup over its shards, and keeps a prefix to the tags it names (a shard of "promo" is keyed "promo#<n> ")', async () => {
    const ws = await workspace();
    // Each stream shard's windows write to the rollup shard of that stream shard.
    const streamShards = ['shardId-00000001', 'shardId-00000002'];
    expect(new Set(streamShards.map(rollupShardOfStreamShard)).size).toBe(2);
    for (let hour = 0; hour < 8; hour++) await sentAt(ws, `2026-08-01T0${hour}:00:00.000Z`, ['promo', 'promo#1'], { spreadOver: streamShards });
    const dayRollups = (await env.table.scanAll()).filter((item) => item.pk === `WS#${ws}#RW`);
    expect(dayRollups.length).toBe(2);
    const day = { startDate: '2026-08-01', endDate: '2026-08-01' };

    expect((await discoverTrackingTags(ws, { ...day, page: 1, limit: 50 }, env.table)).items).toEqual([
      { trackingTag: 'promo', dispatchCount: 8 },
      { trackingTag: 'promo#1', dispatchCount: 8 },
    ]);
    expect((await discoverTrackingTags(ws, { ...day, prefix: 'promo#', page: 1, limit: 50 }, env.table)).items).toEqual([{ trackingTag: 'promo#1', dispatchCount: 8 }]);
    expect((await summarizeTrackingTags(ws, { ...day, trackingTags: ['promo'] }, env.table))[0]).toEqual({
      trackingTag: 'promo',
      dispatchCount: 8,
      credits: 16,
      amountRupiah: 2400,
      templates: [{ templateId: TEMPLATE_ID, templateName: 'Order shipped', dispatchCount: 8, credits: 16, amountRupiah: 2400 }],
    });
    const workspaceList = await listReportDispatches(ws, { ...day, page: 1, limit: 1, selector: { scope: 'WORKSPACE' } }, env.table);
    expect(workspaceList.pagination).toEqual({ page: 1, limit: 1, totalItems: 8, totalPages: 8 });
  });

  it('never shows another workspace’s tags or totals', async () => {
    const mine = await workspace();
    const theirs = await workspace();
    await sentAt(theirs, '2026-06-01T05:00:00.000Z', ['secret']);
    expect((await discoverTrackingTags(mine, { startDate: '2026-06-01', endDate: '2026-06-01', page: 1, limit: 50 }, env.table)).items).toEqual([]);
    expect((await summarizeTrackingTags(mine, { startDate: '2026-06-01', endDate: '2026-06-01', trackingTags: ['secret'] }, env.table))[0]).toMatchObject({ dispatchCount: 0 });
  });
});

describe('the report dispatch list', () => {
  let ws: string;
  /** Dispatch ids by how they were tagged, newest first. */
  const made: { id: string; at: string; tags: string[] }[] = [];

  beforeAll(async () => {
    ws = await workspace();
    // 24 dispatches over three WIB days (one boundary at 17:00Z), cycling through tag sets.
    const tagSets = [['a'], ['b'], ['a', 'b'], []];
    for (let i = 0; i < 24; i++) {
      const at = new Date(Date.parse('2026-07-01T12:00:00.000Z') + i * 2 * 60 * 60 * 1000).toISOString();
      const tags = tagSets[i % tagSets.length]!;
      made.push({ id: await sentAt(ws, at, tags), at, tags });
    }
    await sentAt(ws, '2026-07-01T12:30:00.000Z', ['a'], { provider: refusing });
    made.reverse();
  }, 60_000);

  const list = async (selector: DispatchSelector, page: number, limit: number) => {
    const result = await listReportDispatches(ws, { startDate: '2026-07-01', endDate: '2026-07-03', page, limit, selector }, env.table);
    return { items: await readAllRows(result), pagination: result.pagination };
  };
  const allPages = async (selector: DispatchSelector, limit: number) => {
    const first = await list(selector, 1, limit);
    const rest = await Promise.all(Array.from({ length: Math.max(0, first.pagination.totalPages - 1) }, (_, i) => list(selector, i + 2, limit)));
    return { ids: [first, ...rest].flatMap((page) => page.items.map((row) => row.dispatchId)), pagination: first.pagination };
  };

  it.each([
    ['scope=WORKSPACE, untagged sends included', { scope: 'WORKSPACE' } as const, () => true],
    ['one tag', { trackingTags: ['a'], match: 'ANY' } as const, (tags: string[]) => tags.includes('a')],
    ['ANY of two overlapping tags', { trackingTags: ['a', 'b'], match: 'ANY' } as const, (tags: string[]) => tags.includes('a') || tags.includes('b')],
    ['ALL of two overlapping tags', { trackingTags: ['a', 'b'], match: 'ALL' } as const, (tags: string[]) => tags.includes('a') && tags.includes('b')],
  ])('%s: pages concatenate to the full list, newest first, with exact totals', async (_, selector, matches) => {
    const expected = made.filter((dispatch) => matches(dispatch.tags)).map((dispatch) => dispatch.id);
    for (const limit of [1, 5, 7, 100]) {
      const { ids, pagination } = await allPages(selector, limit);
      expect(ids).toEqual(expected);
      expect(pagination).toEqual({ page: 1, limit, totalItems: expected.length, totalPages: Math.ceil(expected.length / limit) });
    }
  });

  it('answers a page past the end with no rows and the same totals', async () => {
    expect(await list({ scope: 'WORKSPACE' }, 99, 10)).toEqual({ items: [], pagination: { page: 99, limit: 10, totalItems: 24, totalPages: 3 } });
  });

  it('gives every row field of the contract, nullable ones as null', async () => {
    const [row] = (await list({ trackingTags: ['b'], match: 'ALL' }, 1, 1)).items;
    expect(row).toStrictEqual({
      dispatchId: made.find((dispatch) => dispatch.tags.includes('b'))!.id,
      recipientPhone: '+6281234567890',
      templateId: TEMPLATE_ID,
      templateName: 'Order shipped',
      source: 'EXTERNAL_API',
      apiClient: { id: expect.any(String), name: 'k' },
      status: 'SENT',
      trackingTags: expect.arrayContaining(['b']),
      creditCost: 2,
      amountRupiah: 300,
      createdAt: expect.any(String),
      sentAt: expect.any(String),
      deliveredAt: null,
    });
  });

  it('never lists another workspace’s dispatches', async () => {
    const other = await workspace();
    const result = await listReportDispatches(other, { startDate: '2026-07-01', endDate: '2026-07-03', page: 1, limit: 50, selector: { scope: 'WORKSPACE' } }, env.table);
    expect({ items: await readAllRows(result), pagination: result.pagination }).toEqual({ items: [], pagination: { page: 1, limit: 50, totalItems: 0, totalPages: 0 } });
  });
});
