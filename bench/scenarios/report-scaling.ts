import { performance } from 'node:perf_hooks';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { listReportDispatches, readAllRows } from '../../lambdas/domain/reports/dispatch-list';
import { discoverTrackingTags } from '../../lambdas/domain/reports/tag-discovery';
import { summarizeTrackingTags } from '../../lambdas/domain/reports/tag-summary';
import { saveWorkspace } from '../../lambdas/domain/workspaces/workspace-repository';
import { config } from '../../lambdas/shared/config';
import { queryAll } from '../../lambdas/shared/query-all';
import { documentClientOptions, type Store } from '../../lambdas/shared/store';
import { accessPatterns } from '../../lambdas/shared/table';
import { seedDeliveredDispatches } from '../../test/support/seed-reports';
import { describeCalls, itemsRead, median, ratioNumbers, valueNumbers, verdictOf, type instrument, type Row } from '../harness';

type Meter = ReturnType<typeof instrument>;

const SIZES = [1_000, 10_000, 100_000];
const TAGS = ['spring', 'summer', 'autumn', 'winter', 'always'];
const TEMPLATES = [
  { id: '7b0c5c3e-0000-4000-8000-000000000001', name: 'Order shipped' },
  { id: '7b0c5c3e-0000-4000-8000-000000000002', name: 'Reminder' },
  { id: '7b0c5c3e-0000-4000-8000-000000000003', name: 'Receipt' },
];
const PERIOD = { startDate: '2026-09-01', endDate: '2026-09-30' };
const RUNS = 7;

/**
 * Row 6 and issue 5's cost targets: the same 30-day, 5-tag, 3-template workload at 10^3, 10^4
 * and 10^5 dispatches, seeded directly. Summary and tag discovery must cost the same at every
 * size (they read rollups); times are medians of interleaved runs.
 */
export async function reportScaling(meter: Meter, store: Store, log: (line: string) => void): Promise<Row[]> {
  const workspaces: string[] = [];
  for (const count of SIZES) {
    const workspaceId = `ws-bench-${count}`;
    const started = Date.now();
    await saveWorkspace({ id: workspaceId, name: workspaceId, rupiahPerCredit: 150 }, new Date(), store);
    await seedDeliveredDispatches(store, { workspaceId, count, days: 30, lastDay: PERIOD.endDate, tags: TAGS, templates: TEMPLATES });
    log(`  seeded ${count} dispatches in ${((Date.now() - started) / 1000).toFixed(0)} s`);
    workspaces.push(workspaceId);
  }

  const summary = (ws: string) => summarizeTrackingTags(ws, { ...PERIOD, trackingTags: TAGS });
  const discovery = (ws: string) => discoverTrackingTags(ws, { ...PERIOD, page: 1, limit: 50 });
  const timings = { summary: SIZES.map(() => [] as number[]), discovery: SIZES.map(() => [] as number[]) };
  // Sizes interleave, in alternating order, so drift (JIT, GC, the consumer beside) hits each alike.
  for (let run = 0; run < RUNS; run++) {
    const order = [...workspaces.entries()];
    if (run % 2 === 1) order.reverse();
    for (const [i, ws] of order) {
      for (const [name, work] of [['summary', summary], ['discovery', discovery]] as const) {
        const started = performance.now();
        await work(ws);
        timings[name][i]!.push(performance.now() - started);
      }
    }
  }
  const items = {
    summary: await Promise.all(workspaces.map(async (ws) => itemsRead(await meter.measure(() => summary(ws))))),
    discovery: await Promise.all(workspaces.map(async (ws) => itemsRead(await meter.measure(() => discovery(ws))))),
  };

  const largest = workspaces.at(-1)!;
  const page = (number: number) => meter.measure(async () => readAllRows(await listReportDispatches(largest, { ...PERIOD, page: number, limit: 100, selector: { scope: 'WORKSPACE' } })));
  const firstPage = await page(1);
  const deepPage = await page(100);
  const tagPage = await meter.measure(async () => readAllRows(await listReportDispatches(largest, { ...PERIOD, page: 1, limit: 100, selector: { trackingTags: ['spring'], match: 'ANY' } })));

  const rows: Row[] = [await dayReadCpu(store, largest)];
  for (const name of ['summary', 'discovery'] as const) {
    const medians = timings[name].map(median);
    const time = ratioNumbers('ms at 10^5 vs 10^3', medians[2]!, medians[0]!, 1.5);
    // "The same at every size": the most items any size read, against the fewest.
    const sameItems = ratioNumbers('items read, most vs fewest over the sizes', Math.max(...items[name]), Math.min(...items[name]), 1);
    rows.push(
      {
        id: name === 'summary' ? '6a' : '6b',
        what: `${name === 'summary' ? 'summary, 5 tags' : 'tag discovery'} × 30 days: time at 10^3 / 10^4 / 10^5`,
        figure: `${medians.map((ms) => ms.toFixed(1)).join(' / ')} ms (ratio ${time.ratio!.toFixed(2)})`,
        target: '10^5 / 10^3 ≤ 1.5',
        verdict: verdictOf(time),
        numbers: time,
      },
      {
        id: name === 'summary' ? '6c' : '6d',
        what: `${name === 'summary' ? 'summary' : 'tag discovery'}: items read at 10^3 / 10^4 / 10^5`,
        figure: items[name].join(' / '),
        target: 'the same at every size',
        verdict: verdictOf(sameItems),
        numbers: sameItems,
      },
    );
  }
  /** A page of the list, held to the items it may read. */
  const listPage = (row: { id: string; what: string; target: string }, calls: Awaited<ReturnType<typeof page>>, mostItems: number): Row => {
    const numbers = valueNumbers('items read', itemsRead(calls), mostItems);
    return { ...row, figure: `${describeCalls(calls)}, ${itemsRead(calls)} items`, verdict: verdictOf(numbers), numbers };
  };
  rows.push(
    listPage({ id: '5h', what: 'dispatch list page 1 × 100, WORKSPACE, 10^5 dispatches', target: 'about its own size' }, firstPage, 100 + 31),
    listPage(
      { id: '5i', what: 'dispatch list page 100 × 100 (deep), WORKSPACE, 10^5 dispatches', target: 'page + rows before it in its first day (≤ one day)' },
      deepPage,
      100 + 31 + Math.ceil(SIZES[2]! / 30),
    ),
    listPage({ id: '5j', what: 'dispatch list page 1 × 100, one tag, 10^5 dispatches', target: 'about twice its size (links + BatchGet)' }, tagPage, 2 * 100 + 90),
  );
  return rows;
}

/**
 * Row 6e: the CPU one function spends reading a day's report entries at 10^5 (about 3,300 items,
 * several 1 MB pages) through the functions' document client, against the same client as the SDK
 * builds it by default, whose call logger copies every page for a no-op logger (decision 120).
 * Reads alternate; medians of this process's CPU, DynamoDB Local's own being another process's.
 */
async function dayReadCpu(store: Store, workspaceId: string): Promise<Row> {
  // Built as lambdas/shared/clients.ts builds the functions' client, but for `withoutCallLog`.
  const sdkDefault: Store = { tableName: store.tableName, db: DynamoDBDocumentClient.from(new DynamoDBClient({ region: config.AWS_REGION, endpoint: config.DYNAMODB_ENDPOINT }), documentClientOptions) };
  const read = async (target: Store) => {
    const before = process.cpuUsage();
    const items = await queryAll(target, accessPatterns.sentOnDay(workspaceId, PERIOD.endDate));
    const used = process.cpuUsage(before);
    return { ms: (used.user + used.system) / 1000, items: items.length };
  };
  const ours: number[] = [];
  const theirs: number[] = [];
  let items = 0;
  await read(store);
  await read(sdkDefault);
  for (let run = 0; run < RUNS; run++) {
    const a = await read(store);
    ours.push(a.ms);
    theirs.push((await read(sdkDefault)).ms);
    items = a.items;
  }
  const ratio = median(ours) / median(theirs);
  return {
    id: '6e',
    what: `one day's report entries at 10^5 (${items} items) read with the functions' document client vs the SDK's default one (call logger kept): CPU in this process`,
    figure: `${median(ours).toFixed(1)} ms vs ${median(theirs).toFixed(1)} ms (×${ratio.toFixed(2)})`,
    target: 'reported',
    verdict: 'reported',
    numbers: ratioNumbers('ms CPU per read', median(ours), median(theirs), null),
  };
}
