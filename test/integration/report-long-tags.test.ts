import { randomUUID } from 'node:crypto';
import { deliverDispatch } from '../../lambdas/domain/delivery/deliver-dispatch';
import { applyStatus } from '../../lambdas/domain/delivery/dispatch-status';
import { sendTemplateMessage } from '../../lambdas/domain/messages/send-message';
import { listReportDispatches, readAllRows } from '../../lambdas/domain/reports/dispatch-list';
import { discoverTrackingTags } from '../../lambdas/domain/reports/tag-discovery';
import { summarizeTrackingTags } from '../../lambdas/domain/reports/tag-summary';
import { rollupShardOfStreamShard } from '../../lambdas/shared/table';
import { TEMPLATE_ID } from '../support/send-fixtures';
import { acceptingProvider, freshWorkspace } from '../support/report-fixtures';
import { useTableAndQueues } from '../support/sqs';
import { runReportProjection } from '../support/stream-consumer';

/**
 * A tracking tag is 1–256 characters, counted as code points: 256 emoji are 1024 bytes of UTF-8,
 * as long as a DynamoDB sort key may be. The tag is in the sort key of its day's discovery rollup
 * (and of a tag link written before decision 102): a key past 1024 bytes is refused, and a window of
 * the report projection holding one was refused for good, holding back every workspace's reports
 * on its stream shard.
 */
const env = useTableAndQueues();
const DAY = '2026-09-01';
const LONGEST = '😀'.repeat(256);
// A stream shard whose window sums go to a rollup shard other than 0, whose keys carry a suffix.
const SHARD = Array.from({ length: 20 }, (_, i) => `shardId-0000000${i}`).find((id) => rollupShardOfStreamShard(id) !== 0)!;

async function sent(ws: string, tags: string[]) {
  const { dispatchId } = await sendTemplateMessage(
    { workspaceId: ws, apiClient: { id: randomUUID(), name: 'k' }, to: '081234567890', templateId: TEMPLATE_ID, variables: { name: 'B', order: '1' }, tagIds: [], trackingTags: tags, now: new Date(`${DAY}T03:00:00.000Z`) },
    { store: env.table, queue: env.queues },
  );
  await deliverDispatch({ dispatchId, workspaceId: ws, receiveCount: 1, maxReceives: 5 }, { providerFor: () => acceptingProvider, store: env.table });
  return dispatchId;
}

async function reports(ws: string) {
  const period = { startDate: DAY, endDate: DAY };
  const page = await listReportDispatches(ws, { ...period, page: 1, limit: 50, selector: { trackingTags: [LONGEST], match: 'ANY' } }, env.table);
  return {
    tags: (await discoverTrackingTags(ws, { ...period, page: 1, limit: 50 }, env.table)).items,
    summary: (await summarizeTrackingTags(ws, { ...period, trackingTags: [LONGEST] }, env.table)).map(({ dispatchCount }) => dispatchCount),
    listed: (await readAllRows(page)).map((row) => row.dispatchId),
  };
}

describe('a tracking tag of 256 emoji in the reports', () => {
  it('is counted, listed and found by its prefix, and a late failure takes it back out', async () => {
    const ws = await freshWorkspace(env.table);
    const dispatchId = await sent(ws, [LONGEST, 'promo']);
    await runReportProjection(env.table, { spreadOver: [SHARD] });
    expect(await reports(ws)).toEqual({
      tags: [
        { trackingTag: 'promo', dispatchCount: 1 },
        { trackingTag: LONGEST, dispatchCount: 1 },
      ],
      summary: [1],
      listed: [dispatchId],
    });
    expect((await discoverTrackingTags(ws, { startDate: DAY, endDate: DAY, page: 1, limit: 50, prefix: '😀😀' }, env.table)).items).toEqual([{ trackingTag: LONGEST, dispatchCount: 1 }]);

    expect(await applyStatus(dispatchId, { to: 'failed', occurredAt: `${DAY}T05:00:00.000Z`, failureCode: '131026', event: 'REJECTED' }, env.table)).toBe(true);
    await runReportProjection(env.table, { spreadOver: [SHARD] });
    expect(await reports(ws)).toEqual({ tags: [], summary: [0], listed: [] });
  });
});
