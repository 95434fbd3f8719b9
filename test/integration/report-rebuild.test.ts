import { randomUUID } from 'node:crypto';
import { DeleteCommand, PutCommand } from '@aws-sdk/lib-dynamodb';
import { getDispatch } from '../../lambdas/domain/messages/dispatch-repository';
import { dayRollups, dayTagRollups, rollupWrite, tagLinks, tagRollups } from '../../lambdas/domain/reports/report-items';
import { wibRange } from '../../lambdas/domain/time/wib';
import { keys } from '../../lambdas/shared/table';
import { writeOne } from '../../lambdas/shared/writes';
import { runAdmin } from '../../lib/admin/cli';
import { TEMPLATE_ID } from '../support/send-fixtures';
import { freshWorkspace, sentDispatch } from '../support/report-fixtures';
import { useTableAndQueues } from '../support/sqs';

/**
 * `reports check` and `reports rebuild` on DynamoDB Local: a day's rollups and tag links held
 * against the dispatches that count as sent, as the report projection left them and as a double
 * count, a lost link and a link left behind would leave them.
 */
const env = useTableAndQueues();
const DAY = '2026-05-10';
/** The admin CLI's clock: the day after DAY (WIB), so DAY is over. */
const NOW = new Date('2026-05-11T06:00:00.000Z');

async function admin(...argv: string[]) {
  const out: string[] = [];
  const err: string[] = [];
  // Nothing else writes the table meanwhile: the rebuild's second read need not wait (report-rebuild-live.test.ts does).
  const status = await runAdmin([...argv, '--json'], { out: (text) => out.push(text), err: (text) => err.push(text), env: {}, target: async () => ({ ...env.table, description: 'test table' }), now: () => NOW, wait: async () => undefined });
  return { status, json: JSON.parse(out.join('\n')) as Record<string, unknown>, stderr: err.join('\n') };
}

const sent = (ws: string, at: string, tags: string[]) => sentDispatch(env, ws, at, tags);

/** What the report readers answer for DAY. */
async function reports(ws: string) {
  const { start, end } = wibRange(DAY, DAY);
  const links = async (tag: string) => (await tagLinks(ws, tag, start, end, env.table)).map((link) => link.dispatchId).sort();
  return {
    day: (await dayRollups(ws, DAY, DAY, env.table)).map((rollup) => rollup.dispatchCount),
    dayTags: (await dayTagRollups(ws, DAY, undefined, env.table)).map(({ trackingTag, dispatchCount }) => [trackingTag, dispatchCount]).sort(),
    promo: (await tagRollups(ws, 'promo', DAY, DAY, env.table)).map(({ dispatchCount, credits, amountRupiah }) => ({ dispatchCount, credits, amountRupiah })),
    promoLinks: await links('promo'),
    vipLinks: await links('vip'),
  };
}

describe('admin CLI: a day’s reports held against its dispatches', () => {
  it('finds nothing to put right in what the projection wrote; after a double count, a lost link and a link left behind, lists each and rebuilds the day', async () => {
    const ws = await freshWorkspace(env.table);
    const a = await sent(ws, '2026-05-10T01:00:00.000Z', ['promo', 'vip']);
    const b = await sent(ws, '2026-05-10T02:00:00.000Z', ['promo']);
    await sent(ws, '2026-05-10T03:00:00.000Z', []);
    const { creditCost, amountRupiah, templateName } = (await getDispatch(ws, b, env.table))!;
    const right = await reports(ws);
    expect(right).toEqual({
      day: [3],
      dayTags: [['promo', 2], ['vip', 1]],
      promo: [{ dispatchCount: 2, credits: 2 * creditCost, amountRupiah: 2 * amountRupiah }],
      promoLinks: [a, b].sort(),
      vipLinks: [a],
    });

    const agreed = await admin('reports', 'check', '--workspace', ws, '--date', DAY);
    expect(agreed.status).toBe(0);
    expect(agreed.json).toEqual({ workspace: ws, date: DAY, counted: 3, corrections: [], linksMissing: 0, linksExtra: 0 });

    // b counted twice (a shard of its own), a's vip link lost, a link left behind by a dispatch that does not count.
    await writeOne(env.table, rollupWrite({ kind: 'day', workspaceId: ws, day: DAY, dispatchCount: 1 }, 5));
    await writeOne(env.table, rollupWrite({ kind: 'dayTag', workspaceId: ws, day: DAY, tag: 'promo', dispatchCount: 1 }, 5));
    await writeOne(env.table, rollupWrite({ kind: 'tag', workspaceId: ws, day: DAY, tag: 'promo', templateId: TEMPLATE_ID, templateName, dispatchCount: 1, credits: creditCost, amountRupiah }, 5));
    await env.table.db.send(new DeleteCommand({ TableName: env.table.tableName, Key: keys.tagLink(ws, 'vip', '2026-05-10T01:00:00.000Z', a) }));
    const stray = randomUUID();
    await env.table.db.send(new PutCommand({ TableName: env.table.tableName, Item: { ...keys.tagLink(ws, 'promo', '2026-05-10T04:00:00.000Z', stray), entity: 'tagLink', dispatchId: stray } }));

    const found = await admin('reports', 'check', '--workspace', ws, '--date', DAY);
    expect(found.json).toEqual({
      workspace: ws,
      date: DAY,
      counted: 3,
      corrections: [
        { kind: 'day', workspaceId: ws, day: DAY, dispatchCount: -1 },
        { kind: 'tag', workspaceId: ws, day: DAY, tag: 'promo', templateId: TEMPLATE_ID, templateName, dispatchCount: -1, credits: -creditCost, amountRupiah: -amountRupiah },
        { kind: 'dayTag', workspaceId: ws, day: DAY, tag: 'promo', dispatchCount: -1 },
      ],
      linksMissing: 1,
      linksExtra: 1,
    });
    // `check` only reads.
    expect((await reports(ws)).day).toEqual([4]);

    const rebuilt = await admin('reports', 'rebuild', '--workspace', ws, '--date', DAY);
    expect(rebuilt.status).toBe(0);
    expect(rebuilt.json).toEqual({ ...found.json, moving: { rollups: 0, links: 0 } });
    expect(await reports(ws)).toEqual(right);
    expect((await admin('reports', 'check', '--workspace', ws, '--date', DAY)).json).toMatchObject({ corrections: [], linksMissing: 0, linksExtra: 0 });
  });

  it('rebuilds only a day that is over, and only a workspace that exists', async () => {
    const ws = await freshWorkspace(env.table);
    const today = await admin('reports', 'rebuild', '--workspace', ws, '--date', '2026-05-11');
    expect(today.status).not.toBe(0);
    expect(today.json).toMatchObject({ error: 'day_not_over' });

    const unknown = await admin('reports', 'check', '--workspace', 'ws-nobody', '--date', DAY);
    expect(unknown.status).toBe(2);
    expect(unknown.json).toMatchObject({ error: 'workspace_missing' });

    const badDate = await admin('reports', 'check', '--workspace', ws, '--date', '10-05-2026');
    expect(badDate.status).not.toBe(0);

    // A day that does not exist is a mistake in the command line (exit 2), never a day whose reports "agree".
    for (const [command, date] of [['check', '2026-02-30'], ['rebuild', '2026-13-01']]) {
      const noDay = await admin('reports', command!, '--workspace', ws, '--date', date!);
      expect([noDay.status, noDay.json]).toEqual([2, { error: 'usage', message: expect.stringContaining('--date') }]);
    }
  });
});
