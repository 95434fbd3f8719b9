import { randomUUID } from 'node:crypto';
import { getDispatch } from '../../lambdas/domain/messages/dispatch-repository';
import { listReportDispatches, readAllRows } from '../../lambdas/domain/reports/dispatch-list';
import { tagRollups } from '../../lambdas/domain/reports/report-items';
import { checkDayReports } from '../../lambdas/domain/reports/report-rebuild';
import { summarizeTrackingTags } from '../../lambdas/domain/reports/tag-summary';
import { saveTemplate } from '../../lambdas/domain/templates/template-repository';
import { saveWorkspace } from '../../lambdas/domain/workspaces/workspace-repository';
import { sentDispatch } from '../support/report-fixtures';
import { template } from '../support/send-fixtures';
import { useTableAndQueues } from '../support/sqs';

/**
 * A workspace's `rupiahPerCredit` may have decimals (the contract: a number >= 0). The send
 * fixtures' template costs 2 credits. A review found the reports wrong for such rates: the summary
 * rounded part-way, so its amount depended on how the dispatches fell over days, a list row showed
 * float noise, and `reports check` flagged a day the projection had written right.
 */
const env = useTableAndQueues();

async function workspaceAt(rupiahPerCredit: number, creditCostPerSend?: number): Promise<string> {
  const ws = `ws-${randomUUID().slice(0, 8)}`;
  await saveWorkspace({ id: ws, name: ws, rupiahPerCredit }, new Date(), env.table);
  await saveTemplate(ws, creditCostPerSend ? { ...template, versions: [{ ...template.versions[0]!, creditCostPerSend }] } : template, env.table);
  return ws;
}

const rowsOf = async (ws: string, period: { startDate: string; endDate: string }, tag: string) =>
  readAllRows(await listReportDispatches(ws, { ...period, page: 1, limit: 100, selector: { trackingTags: [tag], match: 'ANY' } }, env.table));

describe('rupiah amounts at a rate with decimals', () => {
  it('fixes each dispatch’s amount to the sen, and the summary is what its dispatches add up to on one WIB day or four', async () => {
    // 2 credits at 0.0625 rupiah: 0.125, fixed as 0.13.
    const oneDay = await workspaceAt(0.0625);
    for (const hour of ['01', '02', '03', '04']) await sentDispatch(env, oneDay, `2026-03-02T${hour}:00:00.000Z`, ['drift']);
    const fourDays = await workspaceAt(0.0625);
    for (const day of ['01', '02', '03', '04']) await sentDispatch(env, fourDays, `2026-03-${day}T01:00:00.000Z`, ['drift']);

    const period = { startDate: '2026-03-01', endDate: '2026-03-04' };
    expect((await rowsOf(fourDays, period, 'drift')).map((row) => row.amountRupiah)).toEqual([0.13, 0.13, 0.13, 0.13]);
    for (const ws of [oneDay, fourDays]) {
      const [summary] = await summarizeTrackingTags(ws, { ...period, trackingTags: ['drift'] }, env.table);
      expect(summary).toMatchObject({ dispatchCount: 4, credits: 8, amountRupiah: 0.52, templates: [expect.objectContaining({ dispatchCount: 4, credits: 8, amountRupiah: 0.52 })] });
    }
  });

  it('fixes an amount of exactly half a sen up, whatever its float reads: 2 credits at 0.0725 (0.145) are 0.15, as 0.125 is 0.13', async () => {
    // 0.145 * 100 is 14.499999999999998 in floating point.
    const ws = await workspaceAt(0.0725);
    await sentDispatch(env, ws, '2026-03-02T01:00:00.000Z', ['half']);
    await sentDispatch(env, ws, '2026-03-02T02:00:00.000Z', ['half']);

    const period = { startDate: '2026-03-02', endDate: '2026-03-02' };
    expect((await rowsOf(ws, period, 'half')).map((row) => row.amountRupiah)).toEqual([0.15, 0.15]);
    const [summary] = await summarizeTrackingTags(ws, { ...period, trackingTags: ['half'] }, env.table);
    expect(summary).toMatchObject({ dispatchCount: 2, credits: 4, amountRupiah: 0.3 });
  });

  it('lists a 3-credit dispatch at 0.1 rupiah a credit as 0.3 rupiah, the amount the summary counts for it', async () => {
    const ws = await workspaceAt(0.1, 3);
    await sentDispatch(env, ws, '2026-03-02T01:00:00.000Z', ['three']);

    const period = { startDate: '2026-03-02', endDate: '2026-03-02' };
    const [summary] = await summarizeTrackingTags(ws, { ...period, trackingTags: ['three'] }, env.table);
    expect(summary).toMatchObject({ dispatchCount: 1, credits: 3, amountRupiah: 0.3 });
    expect(await rowsOf(ws, period, 'three')).toEqual([expect.objectContaining({ creditCost: 3, amountRupiah: 0.3 })]);
  });

  it('has `reports check` find nothing to put right in a day the projection wrote, and the rollup hold exactly what its dispatches add up to', async () => {
    const day = '2026-05-10';
    const ws = await workspaceAt(0.1);
    const ids: string[] = [];
    for (const hour of ['01', '02', '03']) ids.push(await sentDispatch(env, ws, `${day}T${hour}:00:00.000Z`, ['promo']));
    expect((await getDispatch(ws, ids[0]!, env.table))!.amountRupiah).toBe(0.2);
    expect((await tagRollups(ws, 'promo', day, day, env.table)).map(({ dispatchCount, credits, amountRupiah }) => ({ dispatchCount, credits, amountRupiah }))).toEqual([
      { dispatchCount: 3, credits: 6, amountRupiah: 0.6 },
    ]);

    const check = await checkDayReports(ws, day, env.table);
    expect([check.counted, check.corrections]).toEqual([3, []]);
  });
});
