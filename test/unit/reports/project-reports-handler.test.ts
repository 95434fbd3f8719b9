import { TransactionCanceledException } from '@aws-sdk/client-dynamodb';
import { marshall } from '@aws-sdk/util-dynamodb';
import { BatchWriteCommand, DynamoDBDocumentClient, TransactWriteCommand } from '@aws-sdk/lib-dynamodb';
import { mockClient } from 'aws-sdk-client-mock';
import type { DynamoDBRecord } from 'aws-lambda';
import { draftDispatch } from '../../../lambdas/domain/messages/dispatch';
import { dispatchItem } from '../../../lambdas/domain/messages/dispatch-repository';
import { projectReports, type ReportsWindowEvent } from '../../../lambdas/handlers/project-reports';
import { keys, rollupShardOfStreamShard } from '../../../lambdas/shared/table';
import { resetContainerCaches } from '../../../lib/testing';
import { template } from '../../support/send-fixtures';

const ddb = mockClient(DynamoDBDocumentClient);
beforeEach(() => {
  ddb.reset();
  resetContainerCaches();
  ddb.on(BatchWriteCommand).resolves({});
  ddb.on(TransactWriteCommand).resolves({});
});

const NOW = new Date('2026-11-20T08:00:00.000Z');
const SHARD = 'shardId-00000001732000000000-0a1b2c3d';
const STREAM = 'arn:aws:dynamodb:ap-southeast-3:123456789012:table/messaging-table/stream/2026-11-01T00:00:00.000';
const sent = (dispatchId: string, trackingTags: string[], reportsChange: 1 | -1) => ({
  ...dispatchItem({
    ...draftDispatch({ workspaceId: 'ws-a', apiClient: { id: 'k', name: 'k' }, to: '+6281234567890', variables: { name: 'Budi', order: 'A-1' }, tagIds: [], trackingTags, now: NOW }, template, template.versions[0]!, { rupiahPerCredit: 150 }),
    dispatchId,
    status: reportsChange === 1 ? 'sent' : 'failed',
    sentAt: '2026-11-20T08:00:01.000Z',
  }),
  reportsChange,
});
/** A dispatch change's record as DynamoDB Streams hands it to Lambda (NEW_IMAGE). */
const record = (image: Record<string, unknown>, sequence: string): DynamoDBRecord => ({
  eventID: `event-${sequence}`,
  eventName: 'MODIFY',
  eventVersion: '1.1',
  eventSource: 'aws:dynamodb',
  awsRegion: 'ap-southeast-3',
  eventSourceARN: STREAM,
  dynamodb: { ApproximateCreationDateTime: 1_763_625_601, Keys: marshall({ pk: image.pk, sk: image.sk }) as never, NewImage: marshall(image, { removeUndefinedValues: true }) as never, SequenceNumber: sequence, SizeBytes: 900, StreamViewType: 'NEW_IMAGE' },
});
/** The event Lambda hands a function whose DynamoDB event source has a tumbling window (https://docs.aws.amazon.com/lambda/latest/dg/services-ddb-windows.html). */
const windowEvent = (Records: DynamoDBRecord[], state: ReportsWindowEvent['state'], final: boolean): ReportsWindowEvent => ({
  Records,
  window: { start: '2026-11-20T08:00:00Z', end: '2026-11-20T08:00:05Z' },
  ...(state ? { state } : {}),
  shardId: SHARD,
  eventSourceARN: STREAM,
  isFinalInvokeForWindow: final,
  isWindowTerminatedEarly: false,
});
const A = '0b9e1d8e-0000-4000-8000-0000000000a1';
const B = '0b9e1d8e-0000-4000-8000-0000000000b2';

describe('the report projection (decision 113)', () => {
  it('writes the sums before the window ends once its state would near Lambda’s 1 MB a shard (one tag per invoice), and starts the window’s state again', async () => {
    // 100 dispatches, each with 20 tags of 256 characters of its own: about 3.6 MB of rollups in one batch.
    const dispatchId = (n: number) => `0b9e1d8e-0000-4000-8000-${String(n).padStart(12, '0')}`;
    const tags = (n: number) => Array.from({ length: 20 }, (_, t) => `invoice-${n}-${t}-`.padEnd(256, 'x'));
    const records = Array.from({ length: 100 }, (_, n) => record(sent(dispatchId(n), tags(n), 1), String(100 + n)));

    const answer = await projectReports(windowEvent(records, undefined, false));

    expect(Buffer.byteLength(JSON.stringify(answer))).toBeLessThan(256 * 1024);
    const sums = ddb.commandCalls(TransactWriteCommand).flatMap((call) => call.args[0].input.TransactItems!.filter((item) => item.Update));
    expect(sums).toHaveLength(1 + 100 * 20 * 2);
    // Marked by the window and its first record, as a last invocation's: a try again writes nothing twice.
    expect(ddb.commandCalls(TransactWriteCommand)[0]!.args[0].input.TransactItems![0]!.Put!.Item).toMatchObject(keys.reportWindow(SHARD, '2026-11-20T08:00:00Z', '100', 0));
    expect(answer).toEqual({ state: {} });

    // The window goes on: its last invocation's sums are marked by their own first record.
    ddb.resetHistory();
    await projectReports(windowEvent([record(sent(B, ['promo'], 1), '200')], answer.state, true));
    expect(ddb.commandCalls(TransactWriteCommand).map((call) => call.args[0].input.TransactItems![0]!.Put!.Item)).toEqual([expect.objectContaining(keys.reportWindow(SHARD, '2026-11-20T08:00:00Z', '200', 0))]);
  });

  it('writes a batch’s tag links at once and keeps its rollup deltas in the window’s state, writing no rollup', async () => {
    const answer = await projectReports(windowEvent([record(sent(A, ['promo', 'vip'], 1), '100'), record(sent(B, ['promo'], 1), '101')], undefined, false));

    expect(ddb.commandCalls(TransactWriteCommand)).toHaveLength(0);
    const requests = ddb.commandCalls(BatchWriteCommand).flatMap((call) => call.args[0].input.RequestItems![process.env.TABLE_NAME!]!);
    expect(requests).toEqual([
      { PutRequest: { Item: { ...keys.tagLink('ws-a', 'promo', NOW.toISOString(), A), entity: 'tagLink', dispatchId: A } } },
      { PutRequest: { Item: { ...keys.tagLink('ws-a', 'vip', NOW.toISOString(), A), entity: 'tagLink', dispatchId: A } } },
      { PutRequest: { Item: { ...keys.tagLink('ws-a', 'promo', NOW.toISOString(), B), entity: 'tagLink', dispatchId: B } } },
    ]);
    expect(answer.state.first).toBe('100');
    expect(Object.values(answer.state.sums!).sort((a, b) => JSON.stringify(a).localeCompare(JSON.stringify(b)))).toEqual([
      { kind: 'day', workspaceId: 'ws-a', day: '2026-11-20', dispatchCount: 2 },
      { kind: 'dayTag', workspaceId: 'ws-a', day: '2026-11-20', tag: 'promo', dispatchCount: 2 },
      { kind: 'dayTag', workspaceId: 'ws-a', day: '2026-11-20', tag: 'vip', dispatchCount: 1 },
      { kind: 'tag', workspaceId: 'ws-a', day: '2026-11-20', tag: 'promo', templateId: template.id, templateName: 'Order shipped', dispatchCount: 2, credits: 4, amountRupiah: 600 },
      { kind: 'tag', workspaceId: 'ws-a', day: '2026-11-20', tag: 'vip', templateId: template.id, templateName: 'Order shipped', dispatchCount: 1, credits: 2, amountRupiah: 300 },
    ]);
  });

  it('adds to the state it is handed, and a take-back cancels its count, deleting the links of both shapes', async () => {
    const first = await projectReports(windowEvent([record(sent(A, ['promo'], 1), '100')], undefined, false));
    ddb.reset();
    ddb.on(BatchWriteCommand).resolves({});
    const second = await projectReports(windowEvent([record(sent(A, ['promo'], -1), '105')], first.state, false));

    expect(ddb.commandCalls(BatchWriteCommand)[0]!.args[0].input.RequestItems![process.env.TABLE_NAME!]).toEqual([
      { DeleteRequest: { Key: keys.tagLink('ws-a', 'promo', NOW.toISOString(), A) } },
      { DeleteRequest: { Key: keys.tagLinkUnderDispatch(A, 'promo') } },
    ]);
    expect(second.state.first).toBe('100');
    expect(Object.values(second.state.sums!).map((sum) => sum.dispatchCount)).toEqual([0, 0, 0]);
  });

  it('writes the window’s sums once, at its last invocation, in one transaction with a marker put only if absent, and starts the next window empty', async () => {
    const state = (await projectReports(windowEvent([record(sent(A, ['promo'], 1), '100'), record(sent(B, ['promo'], 1), '101')], undefined, false))).state;
    ddb.resetHistory();

    expect(await projectReports(windowEvent([], state, true))).toEqual({ state: {} });

    const transactions = ddb.commandCalls(TransactWriteCommand);
    expect(transactions).toHaveLength(1);
    const items = transactions[0]!.args[0].input.TransactItems!;
    expect(items[0]!.Put).toMatchObject({ Item: { ...keys.reportWindow(SHARD, '2026-11-20T08:00:00Z', '100', 0), entity: 'reportWindow', ttl: expect.any(Number) }, ConditionExpression: 'attribute_not_exists(pk)' });
    const shard = rollupShardOfStreamShard(SHARD);
    expect(items.slice(1).map((item) => [item.Update!.Key, item.Update!.ExpressionAttributeValues![':count']])).toEqual(
      expect.arrayContaining([
        [keys.dayRollup('ws-a', '2026-11-20', shard), 2],
        [keys.dayTagRollup('ws-a', '2026-11-20', 'promo', shard), 2],
        [keys.tagRollup('ws-a', 'promo', '2026-11-20', template.id, shard), 2],
      ]),
    );
    expect(items).toHaveLength(4);
  });

  it('takes a last invocation whose marker is already there (an earlier try wrote the sums) as done', async () => {
    const state = (await projectReports(windowEvent([record(sent(A, ['promo'], 1), '100')], undefined, false))).state;
    ddb
      .on(TransactWriteCommand)
      .rejects(new TransactionCanceledException({ message: 'Transaction cancelled', $metadata: {}, CancellationReasons: [{ Code: 'ConditionalCheckFailed' }, { Code: 'None' }, { Code: 'None' }, { Code: 'None' }] }));

    await expect(projectReports(windowEvent([], state, true))).resolves.toEqual({ state: {} });
  });

  it('fails the whole invocation when the table refuses the links or the sums, so Lambda hands the batch over again with the state as it was', async () => {
    ddb.on(BatchWriteCommand).rejects(Object.assign(new Error('Throughput exceeds the current capacity of your table'), { name: 'ProvisionedThroughputExceededException' }));
    await expect(projectReports(windowEvent([record(sent(A, ['promo'], 1), '100')], undefined, false))).rejects.toThrow('Throughput exceeds');

    ddb.on(BatchWriteCommand).resolves({});
    const state = (await projectReports(windowEvent([record(sent(A, ['promo'], 1), '100')], undefined, false))).state;
    ddb.on(TransactWriteCommand).rejects(new TransactionCanceledException({ message: 'Transaction cancelled', $metadata: {}, CancellationReasons: [{ Code: 'None' }, { Code: 'ThrottlingError' }, { Code: 'None' }, { Code: 'None' }] }));
    await expect(projectReports(windowEvent([], state, true))).rejects.toMatchObject({ name: 'TransactionCanceledException' });
  });

  it('fails on a change it cannot read rather than count it wrong', async () => {
    const broken: Record<string, unknown> = sent(A, ['promo'], 1);
    delete broken.creditCost;
    await expect(projectReports(windowEvent([record(broken, '100')], undefined, false))).rejects.toThrow(/creditCost/);
    expect(ddb.calls()).toHaveLength(0);
  });
});
