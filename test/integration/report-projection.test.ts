import { randomUUID } from 'node:crypto';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBStreamsClient } from '@aws-sdk/client-dynamodb-streams';
import { deliverDispatch } from '../../lambdas/domain/delivery/deliver-dispatch';
import { sendTemplateMessage } from '../../lambdas/domain/messages/send-message';
import { foldReportsChanges, writeWindowSums, type ReportsChange, type ReportsWindowState } from '../../lambdas/domain/reports/report-projection';
import { isReportsChange } from '../../lambdas/domain/reports/reports-stream-filter';
import { projectReports, type ReportsWindowEvent } from '../../lambdas/handlers/project-reports';
import { keys, rollupShardOfStreamShard } from '../../lambdas/shared/table';
import { startStreamPoller } from '../../lib/local/stream-poller';
import { TEMPLATE_ID } from '../support/send-fixtures';
import { acceptingProvider, freshWorkspace } from '../support/report-fixtures';
import { useTableAndQueues } from '../support/sqs';
import { emulateCancelledTransactions, emulateTransactionConflicts } from '../support/transaction-conflicts';

/**
 * The report projection's exactness on DynamoDB Local (decision 113): a window's sums are written
 * once however often its last invocation is tried, parts and all, and windows of several stream
 * shards writing the same rollups at once each count once.
 */
const env = useTableAndQueues();

const change = (ws: string, tags: string[], sign: 1 | -1 = 1, day = '2026-09-01'): ReportsChange => ({
  dispatch: { dispatchId: randomUUID(), workspaceId: ws, createdAt: `${day}T03:00:00.000Z`, trackingTags: tags, templateId: TEMPLATE_ID, templateName: 'Order shipped', creditCost: 2, amountRupiah: 300 },
  sign,
});
const rollupsOf = async (ws: string) => (await env.table.scanAll()).filter((item) => typeof item.pk === 'string' && item.pk.startsWith(`WS#${ws}#R`));
/** Each kind's total over its items and shards: day, tag, day-tag. */
const countsOf = async (ws: string) => {
  const rollups = await rollupsOf(ws);
  return ['dayRollup', 'tagRollup', 'dayTagRollup'].map((entity) => rollups.filter((item) => item.entity === entity).reduce((sum, item) => sum + (item.dispatchCount as number), 0));
};

describe('a window’s sums', () => {
  it('are written once, however often the window’s last invocation is tried', async () => {
    const ws = await freshWorkspace(env.table);
    const state = foldReportsChanges({}, [change(ws, ['promo']), change(ws, ['promo', 'vip'])], '1000');
    const window = { shardId: 'shardId-00000001', start: '2026-09-01T03:00:00Z' };

    await writeWindowSums(window, state, env.table);
    await writeWindowSums(window, state, env.table);

    expect(await countsOf(ws)).toEqual([2, 3, 3]);
    const tagRollup = (await rollupsOf(ws)).find((item) => item.entity === 'tagRollup' && item.trackingTag === 'promo');
    expect(tagRollup).toMatchObject({ sk: keys.tagRollup(ws, 'promo', '2026-09-01', TEMPLATE_ID, rollupShardOfStreamShard(window.shardId)).sk, dispatchCount: 2, credits: 4, amountRupiah: 600, templateName: 'Order shipped' });
  });

  it('of a window Lambda cut short and went on with under the same start are both written (their first records differ)', async () => {
    const ws = await freshWorkspace(env.table);
    const window = { shardId: 'shardId-00000001', start: '2026-09-01T03:00:00Z' };
    await writeWindowSums(window, foldReportsChanges({}, [change(ws, ['promo'])], '2000'), env.table);
    await writeWindowSums(window, foldReportsChanges({}, [change(ws, ['promo'])], '2050'), env.table);
    expect(await countsOf(ws)).toEqual([2, 2, 2]);
  });

  it('that come to nothing (a send and its take-back in one window) write nothing, not even a marker', async () => {
    const ws = await freshWorkspace(env.table);
    const sent = change(ws, ['promo']);
    const state = foldReportsChanges({}, [sent, { ...sent, sign: -1 }], '3000');
    await writeWindowSums({ shardId: 'shardId-00000001', start: '2026-09-01T03:00:05Z' }, state, env.table);
    expect(await rollupsOf(ws)).toEqual([]);
    expect((await env.table.scanAll()).filter((item) => item.pk === 'RPW#shardId-00000001' && String(item.sk).includes('#3000#'))).toEqual([]);
  });

  it('beyond one transaction go in parts, each with its marker: a try that failed after the first part writes only the rest when tried again', async () => {
    const ws = await freshWorkspace(env.table);
    // 60 tags: a day rollup, 60 tag and 60 day-tag rollups, 121 sums in two parts (99 and 22).
    const tags = Array.from({ length: 60 }, (_, i) => `tag-${String(i).padStart(2, '0')}`);
    const state: ReportsWindowState = foldReportsChanges({}, [change(ws, tags.slice(0, 20)), change(ws, tags.slice(20, 40)), change(ws, tags.slice(40))], '4000');
    const window = { shardId: 'shardId-00000002', start: '2026-09-01T03:00:10Z' };
    // Sums go in the order of their rollups: the day, the day-tag and the first 38 tag rollups
    // make the first part, the last 22 tag rollups the second, which is refused once.
    const refused = emulateCancelledTransactions(env.table.db, { on: (pk) => pk === `WS#${ws}#RT#tag-59`, code: 'ValidationError', times: 1 });
    try {
      await expect(writeWindowSums(window, state, env.table)).rejects.toThrow('Report window sums refused');
    } finally {
      refused.remove();
    }
    expect(refused.stats.cancelled).toBe(1);
    expect((await env.table.scanAll()).filter((item) => item.pk === `RPW#${window.shardId}`).map((item) => item.sk)).toEqual([`${window.start}#4000#0`]);

    await writeWindowSums(window, state, env.table);
    expect(await countsOf(ws)).toEqual([3, 60, 60]);
    expect((await env.table.scanAll()).filter((item) => item.pk === `RPW#${window.shardId}`).map((item) => item.sk)).toEqual([`${window.start}#4000#0`, `${window.start}#4000#1`]);
  });

  it('of several stream shards writing the same rollups at once each count once, through DynamoDB’s transaction conflicts', async () => {
    const ws = await freshWorkspace(env.table);
    // Four stream shards whose windows go to the same rollup shard, so their transactions contend.
    const shards = ['shardId-00000000', 'shardId-00000008', 'shardId-00000011', 'shardId-00000019'];
    expect(new Set(shards.map(rollupShardOfStreamShard)).size).toBe(1);
    const conflicts = emulateTransactionConflicts(env.table.db);
    try {
      await Promise.all(shards.map((shardId, i) => writeWindowSums({ shardId, start: '2026-09-01T03:00:15Z' }, foldReportsChanges({}, [change(ws, ['promo']), change(ws, ['promo'])], String(5000 + i)), env.table)));
    } finally {
      conflicts.remove();
    }
    expect(conflicts.stats.cancelled).toBeGreaterThan(0);
    expect(await countsOf(ws)).toEqual([8, 8, 8]);
  });
});

describe('the report projection behind the local stream poller', () => {
  it('is handed a window’s records with the state so far, tried again with the same state when it fails, and makes the window’s last invocation once it is over', async () => {
    const ws = await freshWorkspace(env.table);
    const region = process.env.AWS_REGION!;
    const dynamodb = new DynamoDBClient({ endpoint: process.env.DYNAMODB_ENDPOINT!, region });
    const streams = new DynamoDBStreamsClient({ endpoint: process.env.DYNAMODB_ENDPOINT!, region });
    const handed: ReportsWindowEvent[] = [];
    let failOnce = true;
    const poller = await startStreamPoller({
      dynamodb,
      streams,
      region,
      tableName: env.table.tableName,
      functionName: 'project-reports',
      filter: isReportsChange,
      consumer: {
        windowSeconds: 1,
        windowHandler: async (event) => {
          handed.push(structuredClone(event));
          if (failOnce && event.Records.length) {
            failOnce = false;
            throw new Error('the first invocation fails');
          }
          return projectReports(event);
        },
      },
      onError: (error) => {
        throw error;
      },
    });
    try {
      for (const tags of [['promo'], ['promo', 'vip']]) {
        const { dispatchId } = await sendTemplateMessage(
          { workspaceId: ws, apiClient: { id: 'k', name: 'k' }, to: '081234567890', templateId: TEMPLATE_ID, variables: { name: 'B', order: '1' }, tagIds: [], trackingTags: tags, now: new Date() },
          { store: env.table, queue: env.queues },
        );
        await deliverDispatch({ dispatchId, workspaceId: ws, receiveCount: 1, maxReceives: 5 }, { providerFor: () => acceptingProvider, store: env.table });
      }
      for (let waited = 0; (await countsOf(ws))[0] !== 2 && waited < 10_000; waited += 200) await new Promise((resolve) => setTimeout(resolve, 200));
    } finally {
      await poller.stop();
      dynamodb.destroy();
      streams.destroy();
    }

    expect(await countsOf(ws)).toEqual([2, 3, 3]);
    // The failed invocation was handed over again as it was, state and records.
    expect(handed[1]).toEqual(handed[0]);
    // Within a window each invocation is handed the state the one before it returned; a window ends with a last invocation.
    const finals = handed.filter((event) => event.isFinalInvokeForWindow);
    expect(finals.length).toBeGreaterThan(0);
    for (const final of finals) expect(final).toMatchObject({ Records: [], isWindowTerminatedEarly: false, eventSourceARN: expect.stringContaining('/stream/') });
    for (const event of handed) expect(Date.parse(event.window.end) - Date.parse(event.window.start)).toBe(1_000);
  });
});
