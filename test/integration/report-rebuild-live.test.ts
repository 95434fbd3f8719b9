import { applyStatus } from '../../lambdas/domain/delivery/dispatch-status';
import { listReportDispatches, readAllRows } from '../../lambdas/domain/reports/dispatch-list';
import { rollupWrite } from '../../lambdas/domain/reports/report-items';
import { discoverTrackingTags } from '../../lambdas/domain/reports/tag-discovery';
import { summarizeTrackingTags } from '../../lambdas/domain/reports/tag-summary';
import { keys } from '../../lambdas/shared/table';
import { writeOne } from '../../lambdas/shared/writes';
import type { Store } from '../../lambdas/shared/store';
import { runAdmin } from '../../lib/admin/cli';
import { freshWorkspace, sentDispatch } from '../support/report-fixtures';
import { runReportProjection } from '../support/stream-consumer';
import { useTableAndQueues } from '../support/sqs';

/**
 * `reports rebuild` while the stack runs (decision 180): a day that is over (WIB) whose last
 * changes the report projection has not written yet, and two rebuilds of one day at once. Each
 * ends with the reports its dispatches say, as the report endpoints read them.
 */
const env = useTableAndQueues();
const DAY = '2026-05-10';
/** The admin CLI's clock: the day after DAY (WIB), so DAY is over and `reports rebuild` takes it. */
const NOW = new Date('2026-05-11T06:00:00.000Z');

/** `wait`: what happens while the rebuild waits between its two reads of the day (the projection writing its window, by default). */
async function admin(argv: string[], wait: () => Promise<void> = () => runReportProjection(env.table), now = NOW) {
  const out: string[] = [];
  const err: string[] = [];
  const status = await runAdmin([...argv, '--json'], { out: (text) => out.push(text), err: (text) => err.push(text), env: {}, target: async () => ({ ...env.table, description: 'test table' }), now: () => now, wait });
  return { status, json: JSON.parse(out.join('\n')) as Record<string, unknown>, stderr: err.join('\n') };
}
const rebuild = (ws: string, wait?: () => Promise<void>, now?: Date) => admin(['reports', 'rebuild', '--workspace', ws, '--date', DAY], wait, now);

/** What the report endpoints answer for DAY: the dispatch list (the workspace's and tag promo's), tag discovery and promo's summary. */
async function reports(ws: string) {
  const period = { startDate: DAY, endDate: DAY };
  const list = async (selector: { scope: 'WORKSPACE' } | { trackingTags: string[]; match: 'ANY' }) => {
    const page = await listReportDispatches(ws, { ...period, page: 1, limit: 50, selector }, env.table);
    return { total: page.pagination.totalItems, ids: (await readAllRows(page)).map((row) => row.dispatchId).sort() };
  };
  return {
    workspace: await list({ scope: 'WORKSPACE' }),
    promo: await list({ trackingTags: ['promo'], match: 'ANY' }),
    tags: (await discoverTrackingTags(ws, { ...period, page: 1, limit: 50 }, env.table)).items,
    summary: (await summarizeTrackingTags(ws, { ...period, trackingTags: ['promo'] }, env.table)).map(({ trackingTag, dispatchCount }) => ({ trackingTag, dispatchCount })),
  };
}

/** What they answer when the reports are right and `ids` are the day's dispatches, all tagged promo. */
const right = (ids: string[]) => ({
  workspace: { total: ids.length, ids: [...ids].sort() },
  promo: { total: ids.length, ids: [...ids].sort() },
  tags: ids.length ? [{ trackingTag: 'promo', dispatchCount: ids.length }] : [],
  summary: [{ trackingTag: 'promo', dispatchCount: ids.length }],
});

/** A's count on DAY written twice (as a rollback across decision 113 leaves it), in a shard of its own. */
const countTwice = async (ws: string) => {
  await writeOne(env.table, rollupWrite({ kind: 'day', workspaceId: ws, day: DAY, dispatchCount: 1 }, 5));
  await writeOne(env.table, rollupWrite({ kind: 'dayTag', workspaceId: ws, day: DAY, tag: 'promo', dispatchCount: 1 }, 5));
};

const settled = { corrections: [], linksMissing: 0, linksExtra: 0 };

describe('reports rebuild while the report projection writes the day’s last changes', () => {
  it('does not count twice a dispatch of the day whose window the projection wrote while the rebuild waited', async () => {
    const ws = await freshWorkspace(env.table);
    const a = await sentDispatch(env, ws, '2026-05-10T03:00:00.000Z', ['promo']);
    // Created 23:59:59 WIB on DAY and sent just after midnight: its change is in the projection's open window.
    const b = await sentDispatch(env, ws, '2026-05-10T16:59:59.000Z', ['promo'], { projected: false });

    const rebuilt = await rebuild(ws);
    expect([rebuilt.status, rebuilt.json]).toEqual([0, { workspace: ws, date: DAY, counted: 2, ...settled, moving: { rollups: 0, links: 0 } }]);
    await runReportProjection(env.table);
    expect(await reports(ws)).toEqual(right([a, b]));
  });

  it('does not take a late failure out twice when the projection takes it out while the rebuild waits', async () => {
    const ws = await freshWorkspace(env.table);
    const a = await sentDispatch(env, ws, '2026-05-10T03:00:00.000Z', ['promo']);
    const b = await sentDispatch(env, ws, '2026-05-10T04:00:00.000Z', ['promo']);
    // WhatsApp reports b failed; its take-back waits for the projection.
    expect(await applyStatus(b, { to: 'failed', occurredAt: NOW.toISOString(), failureCode: '131047', event: 'REJECTED' }, env.table)).toBe(true);

    expect((await rebuild(ws)).status).toBe(0);
    await runReportProjection(env.table);
    expect(await reports(ws)).toEqual(right([a]));
  });

  it('does not take a late failure out twice when a second late failure of the day lands while the rebuild waits, after the projection wrote the first', async () => {
    const ws = await freshWorkspace(env.table);
    const a = await sentDispatch(env, ws, '2026-05-10T03:00:00.000Z', ['promo']);
    const b = await sentDispatch(env, ws, '2026-05-10T04:00:00.000Z', ['promo']);
    const c = await sentDispatch(env, ws, '2026-05-10T05:00:00.000Z', ['promo']);
    const fail = async (dispatchId: string) => void (await applyStatus(dispatchId, { to: 'failed', occurredAt: NOW.toISOString(), failureCode: '131047', event: 'REJECTED' }, env.table));
    // WhatsApp reports b failed; its take-back waits for the projection when the rebuild first reads the day.
    await fail(b);
    // While the rebuild waits, the projection takes b out, and WhatsApp then reports c failed, whose take-back waits in turn.
    const projectBThenFailC = async () => {
      await runReportProjection(env.table);
      await fail(c);
    };

    expect((await rebuild(ws, projectBThenFailC)).status).toBe(0);
    await runReportProjection(env.table);
    // The day's sent dispatches are a alone: each read found the rollups one too high, for another dispatch each time.
    expect(await reports(ws)).toEqual(right([a]));
  });

  it('does not count a late send twice when a second late send of the day lands while the rebuild waits, after the projection wrote the first', async () => {
    const ws = await freshWorkspace(env.table);
    const a = await sentDispatch(env, ws, '2026-05-10T03:00:00.000Z', ['promo']);
    // Created just before midnight WIB and sent after it: its count waits for the projection when the rebuild first reads the day.
    const b = await sentDispatch(env, ws, '2026-05-10T16:59:58.000Z', ['promo'], { projected: false });
    let c = '';
    // While the rebuild waits, the projection counts b, and c, sent just after, waits in turn.
    const projectBThenSendC = async () => {
      await runReportProjection(env.table);
      c = await sentDispatch(env, ws, '2026-05-10T16:59:59.000Z', ['promo'], { projected: false });
    };

    expect((await rebuild(ws, projectBThenSendC)).status).toBe(0);
    await runReportProjection(env.table);
    expect(await reports(ws)).toEqual(right([a, b, c]));
  });

  it('puts right what differs before and after its wait, leaves what moved meanwhile and says so; a second run puts the rest right', async () => {
    const ws = await freshWorkspace(env.table);
    const a = await sentDispatch(env, ws, '2026-05-10T03:00:00.000Z', ['promo']);
    const b = await sentDispatch(env, ws, '2026-05-10T04:00:00.000Z', ['promo']);
    await countTwice(ws);
    // b fails while the rebuild waits, and the projection has not written it by the second read.
    const failB = async () => void (await applyStatus(b, { to: 'failed', occurredAt: NOW.toISOString(), failureCode: '131047', event: 'REJECTED' }, env.table));

    const first = await rebuild(ws, failB);
    expect(first.status).toBe(0);
    // The day's count differed by −1 first and −2 after: a change in flight, not written.
    expect(first.json).toMatchObject({ counted: 1, corrections: [], linksExtra: 0, moving: { rollups: 3, links: 1 } });
    expect(first.stderr).toContain('3 rollups and 1 tag link changed while it ran');
    await runReportProjection(env.table);

    expect((await rebuild(ws)).json).toMatchObject({ counted: 1, corrections: [{ kind: 'day', dispatchCount: -1 }, { kind: 'dayTag', tag: 'promo', dispatchCount: -1 }], moving: { rollups: 0, links: 0 } });
    expect(await reports(ws)).toEqual(right([a]));
  });
});

describe('reports rebuild run twice at once', () => {
  it('refuses the second run while the first holds the day, so a double count is put right once', async () => {
    const ws = await freshWorkspace(env.table);
    const a = await sentDispatch(env, ws, '2026-05-10T01:00:00.000Z', ['promo']);
    const b = await sentDispatch(env, ws, '2026-05-10T02:00:00.000Z', ['promo']);
    await countTwice(ws);

    let second: Awaited<ReturnType<typeof admin>> | undefined;
    const first = await rebuild(ws, async () => {
      second = await rebuild(ws, async () => undefined);
    });
    expect(first.status).toBe(0);
    expect([second?.status, second?.json]).toEqual([1, { error: 'rebuild_running', message: expect.stringContaining('held until 2026-05-11T06:15:00.000Z') }]);
    expect(await reports(ws)).toEqual(right([a, b]));
    // The hold goes with the run: the next one reads the day again and finds it right.
    expect((await rebuild(ws)).json).toMatchObject({ ...settled, moving: { rollups: 0, links: 0 } });
  });

  it('takes over a hold left by a run that was stopped, once its time has passed', async () => {
    const ws = await freshWorkspace(env.table);
    const a = await sentDispatch(env, ws, '2026-05-10T01:00:00.000Z', ['promo']);
    await countTwice(ws);
    await writeOne(env.table, { Put: { Item: { ...keys.reportRebuild(ws, DAY), entity: 'reportRebuild', until: '2026-05-11T05:59:59.999Z' } } });

    expect((await rebuild(ws)).json).toMatchObject({ corrections: [{ kind: 'day', dispatchCount: -1 }, { kind: 'dayTag', dispatchCount: -1 }] });
    expect(await reports(ws)).toEqual(right([a]));
  });

  it('writes nothing once a run has outlived its hold and another has taken the day over: a double count is put right once', async () => {
    const ws = await freshWorkspace(env.table);
    const a = await sentDispatch(env, ws, '2026-05-10T01:00:00.000Z', ['promo']);
    const b = await sentDispatch(env, ws, '2026-05-10T02:00:00.000Z', ['promo']);
    await countTwice(ws);

    // The first run stalls after its second read, as it is about to write, past its 15 minutes (a
    // laptop closed): a second run takes the day over and puts it right before the first wakes up.
    let second: Awaited<ReturnType<typeof admin>> | undefined;
    // (The SDK's paginators take only a DocumentClient: the table's own, its `send` overridden.)
    const db = Object.create(env.table.db) as Store['db'];
    db.send = (async (command: { constructor: { name: string } }) => {
      if (!second && !['GetCommand', 'QueryCommand', 'PutCommand'].includes(command.constructor.name)) {
        second = await rebuild(ws, async () => undefined, new Date(NOW.getTime() + 16 * 60_000));
      }
      return env.table.db.send(command as never);
    }) as Store['db']['send'];
    const stalling = { tableName: env.table.tableName, db };
    const out: string[] = [];
    const status = await runAdmin(['reports', 'rebuild', '--workspace', ws, '--date', DAY, '--json'], { out: (text) => out.push(text), err: () => undefined, env: {}, target: async () => ({ ...stalling, description: 'test table' }), now: () => NOW, wait: async () => undefined });

    expect(second?.json).toMatchObject({ corrections: [{ kind: 'day', dispatchCount: -1 }, { kind: 'dayTag', dispatchCount: -1 }] });
    expect([status, JSON.parse(out.join('\n'))]).toEqual([1, { error: 'rebuild_overtaken', message: expect.stringContaining('reports check') }]);
    expect(await reports(ws)).toEqual(right([a, b]));
  });
});
