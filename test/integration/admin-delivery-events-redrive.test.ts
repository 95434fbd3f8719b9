import { DynamoDBStreamsClient, GetRecordsCommand, GetShardIteratorCommand } from '@aws-sdk/client-dynamodb-streams';
import { BatchWriteCommand, TransactWriteCommand } from '@aws-sdk/lib-dynamodb';
import { mockClient } from 'aws-sdk-client-mock';
import { claimDispatch } from '../../lambdas/domain/delivery/delivery-attempt';
import { checkSend } from '../../lambdas/domain/delivery/send-check';
import { deliveryEventsForPhones } from '../../lambdas/domain/delivery/delivery-events';
import { applyReportedTime, applyReadReceipt, applyStatus } from '../../lambdas/domain/delivery/dispatch-status';
import { sendTemplateMessage } from '../../lambdas/domain/messages/send-message';
import { publishBatch } from '../../lambdas/handlers/publish-webhook-events';
import { runAdmin } from '../../lib/admin/cli';
import { lambdaContext } from '../../lib/local/api-gateway-event';
import { toLambdaRecord } from '../../lib/local/stream-poller';
import { sendCommand, sendingWorkspace } from '../support/send-commands';
import { TEMPLATE_ID } from '../support/send-fixtures';
import { useTableAndQueues } from '../support/sqs';
import { streamRecords } from '../support/table-stream';

/**
 * DynamoDB Streams' GetRecords: "If there are no stream records available in the portion of the
 * shard that the iterator points to, GetRecords returns an empty list. Note that it might take
 * multiple calls to get to a portion of the shard that contains stream records." The runbook's
 * `delivery-events redrive` (docs/operations.md, stream-batches-failed) must read through such
 * pages to the batch's last record, and must not report success when it never got there.
 */
const env = useTableAndQueues();

async function admin(...argv: string[]) {
  const out: string[] = [];
  const err: string[] = [];
  const status = await runAdmin(argv, { out: (text) => out.push(text), err: (text) => err.push(text), env: {}, target: async () => ({ ...env.table, description: 'test table' }) });
  return { status, stdout: out.join('\n'), stderr: err.join('\n') };
}

async function deliveredBatch() {
  const ws = await sendingWorkspace(env.table);
  const { dispatchId } = await sendTemplateMessage(sendCommand(ws, { to: '+6281234560088', now: new Date('2026-10-01T00:00:00.000Z') }), { store: env.table, queue: env.queues });
  await claimDispatch(dispatchId, new Date(), env.table);
  expect(await applyStatus(dispatchId, { to: 'sent', occurredAt: '2026-10-01T06:00:00.000Z' }, env.table)).toBe(true);
  expect(await applyStatus(dispatchId, { to: 'delivered', event: 'DELIVERED', occurredAt: '2026-10-01T06:00:05.000Z' }, env.table)).toBe(true);
  const batch = (await streamRecords(env.table)).filter(({ record }) => record.dynamodb?.Keys?.pk?.S === `DSP#${dispatchId}` && record.eventName === 'MODIFY');
  return { ws, batch, streamArn: batch[0]!.streamArn, shardId: batch[0]!.shardId, from: batch[0]!.record.dynamodb!.SequenceNumber!, to: batch.at(-1)!.record.dynamodb!.SequenceNumber! };
}

// The stream as DynamoDB Streams may serve it, once the batch is built from the real one.
let streams: ReturnType<typeof mockClient> | undefined;
const servedStream = () => (streams = mockClient(DynamoDBStreamsClient));
afterEach(() => streams?.restore());

it('reads past empty pages to the batch’s last record, and writes its events', async () => {
  const { ws, batch, shardId, from, to } = await deliveredBatch();
  const later = { ...batch.at(-1)!.record, dynamodb: { ...batch.at(-1)!.record.dynamodb, SequenceNumber: (BigInt(to) + 1000n).toString() } };
  const streams = servedStream();
  streams.on(GetShardIteratorCommand).resolves({ ShardIterator: 'it-0' });
  streams.on(GetRecordsCommand, { ShardIterator: 'it-0' }).resolves({ Records: [], NextShardIterator: 'it-1' });
  streams.on(GetRecordsCommand, { ShardIterator: 'it-1' }).resolves({ Records: [], NextShardIterator: 'it-2' });
  streams.on(GetRecordsCommand, { ShardIterator: 'it-2' }).resolves({ Records: [...batch.map(({ record }) => record), later], NextShardIterator: 'it-3' });

  const answer = await admin('delivery-events', 'redrive', '--shard', shardId, '--from', from, '--to', to, '--json');
  expect(answer.status).toBe(0);
  expect(JSON.parse(answer.stdout)).toMatchObject({ records: batch.length, dispatchChanges: batch.length, events: 2 });
  const events = (await deliveryEventsForPhones(ws, ['+6281234560088'], { startDate: '2026-10-01', endDate: '2026-10-01' }, env.table))[0]!.events;
  expect(events.map((event) => event.status)).toEqual(['ACCEPTED', 'DELIVERED']);
});

// A stream-failure message names its batch's stream (`streamArn`), which is the table's latest
// only until the stream is replaced; the one named must be the table's, by DynamoDB's own ARNs.
it('reads the stream --stream-arn names, one of the table’s, and writes the batch’s events', async () => {
  const { ws, streamArn, shardId, from, to } = await deliveredBatch();
  const answer = await admin('delivery-events', 'redrive', '--stream-arn', streamArn, '--shard', shardId, '--from', from, '--to', to, '--json');
  expect([answer.status, answer.stderr]).toEqual([0, 'Target: test table']);
  const events = (await deliveryEventsForPhones(ws, ['+6281234560088'], { startDate: '2026-10-01', endDate: '2026-10-01' }, env.table))[0]?.events;
  expect(events?.map((event) => event.status)).toEqual(['ACCEPTED', 'DELIVERED']);
});

// A read that came first moved the dispatch at its time; the delivered after it moved the event back (decision 200).
it('writes the DELIVERED event where a later delivered corrected it, and not where the read had put it', async () => {
  const ws = await sendingWorkspace(env.table);
  const { dispatchId } = await sendTemplateMessage(sendCommand(ws, { to: '+6281234560089', now: new Date('2026-10-01T00:00:00.000Z') }), { store: env.table, queue: env.queues });
  await claimDispatch(dispatchId, new Date(), env.table);
  expect(await applyStatus(dispatchId, { to: 'sent', occurredAt: '2026-10-01T06:00:00.000Z' }, env.table)).toBe(true);
  expect(await applyStatus(dispatchId, { to: 'delivered', event: 'DELIVERED', occurredAt: '2026-10-01T06:00:20.000Z' }, env.table)).toBe(true);
  expect(await applyReadReceipt(dispatchId, '2026-10-01T06:00:20.000Z', env.table)).toBe(true);
  expect(await applyReportedTime(dispatchId, 'delivered', '2026-10-01T06:00:05.000Z', env.table)).toBe(true);
  const batch = (await streamRecords(env.table)).filter(({ record }) => record.dynamodb?.Keys?.pk?.S === `DSP#${dispatchId}` && record.eventName === 'MODIFY');

  const first = batch[0]!;
  const answer = await admin('delivery-events', 'redrive', '--shard', first.shardId, '--from', first.record.dynamodb!.SequenceNumber!, '--to', batch.at(-1)!.record.dynamodb!.SequenceNumber!);
  expect(answer.status).toBe(0);
  const events = (await deliveryEventsForPhones(ws, ['+6281234560089'], { startDate: '2026-10-01', endDate: '2026-10-01' }, env.table))[0]!.events;
  expect(events.map(({ status, occurredAt }) => [status, occurredAt])).toEqual([
    ['ACCEPTED', '2026-10-01T06:00:00.000Z'],
    ['DELIVERED', '2026-10-01T06:00:05.000Z'],
  ]);
});

// Found by the skeptic review: the redrive runs while the consumer is live, and WhatsApp's delivered
// may land, and be projected, between the redrive's look at the dispatch and its write.
it('keeps one DELIVERED event when the delivered’s correction lands while the redrive writes the batch', async () => {
  const ws = await sendingWorkspace(env.table);
  const phone = '+6281234560093';
  const { dispatchId } = await sendTemplateMessage(sendCommand(ws, { to: phone, now: new Date('2026-10-01T00:00:00.000Z') }), { store: env.table, queue: env.queues });
  await claimDispatch(dispatchId, new Date(), env.table);
  expect(await applyStatus(dispatchId, { to: 'sent', occurredAt: '2026-10-01T06:00:00.000Z' }, env.table)).toBe(true);
  // The read came first and moved the dispatch to delivered at its time; the consumer gave up on this batch.
  expect(await applyStatus(dispatchId, { to: 'delivered', event: 'DELIVERED', occurredAt: '2026-10-01T06:00:20.000Z' }, env.table)).toBe(true);
  expect(await applyReadReceipt(dispatchId, '2026-10-01T06:00:20.000Z', env.table)).toBe(true);
  const failedBatch = (await streamRecords(env.table)).filter(({ record }) => record.dynamodb?.Keys?.pk?.S === `DSP#${dispatchId}` && record.eventName === 'MODIFY');

  // Before the redrive's first write, the delivered lands and the live consumer projects it.
  let interleaved = false;
  const db = new Proxy(env.table.db, {
    get(target, property, receiver) {
      if (property !== 'send') return Reflect.get(target, property, receiver);
      return async (command: unknown, ...rest: unknown[]) => {
        if ((command instanceof BatchWriteCommand || command instanceof TransactWriteCommand) && !interleaved) {
          interleaved = true;
          expect(await applyReportedTime(dispatchId, 'delivered', '2026-10-01T06:00:05.000Z', env.table)).toBe(true);
          const later = (await streamRecords(env.table)).filter(({ record }) => record.dynamodb?.Keys?.pk?.S === `DSP#${dispatchId}` && record.eventName === 'MODIFY').slice(failedBatch.length);
          const region = process.env.AWS_REGION!;
          const { batchItemFailures } = await publishBatch({ Records: later.map(({ record, streamArn }) => toLambdaRecord(record, streamArn, region)) }, lambdaContext('publish-webhook-events', 60_000));
          expect(batchItemFailures).toEqual([]);
        }
        return (target.send as (...args: unknown[]) => Promise<unknown>)(command, ...rest);
      };
    },
  });
  const first = failedBatch[0]!;
  const status = await runAdmin(['delivery-events', 'redrive', '--shard', first.shardId, '--from', first.record.dynamodb!.SequenceNumber!, '--to', failedBatch.at(-1)!.record.dynamodb!.SequenceNumber!], {
    out: () => {},
    err: () => {},
    env: {},
    target: async () => ({ ...env.table, db, description: 'test table' }),
  });
  expect([status, interleaved]).toEqual([0, true]);
  const events = (await deliveryEventsForPhones(ws, [phone], { startDate: '2026-10-01', endDate: '2026-10-01' }, env.table))[0]!.events;
  expect(events.map(({ status, occurredAt }) => [status, occurredAt])).toEqual([
    ['ACCEPTED', '2026-10-01T06:00:00.000Z'],
    ['DELIVERED', '2026-10-01T06:00:05.000Z'],
  ]);
});

// Decision 192: the change that fails a dispatch gives back its day's send (dedupe wib-day), which the
// stream consumer writes; when it gave the batch up, the runbook's redrive must, or a new send of the
// message the customer never got is 409 duplicate_send for the rest of the day (found by the failure review).
it('a REJECTED dispatch in a batch the publisher gave up on gets its day’s send back from the runbook’s redrive', async () => {
  const ws = await sendingWorkspace(env.table, { dedupe: 'wib-day' });
  const to = '+6281234560177';
  const now = new Date();
  const { dispatchId } = await sendTemplateMessage(sendCommand(ws, { to, now }), { store: env.table, queue: env.queues });
  await claimDispatch(dispatchId, new Date(), env.table);
  expect(await applyStatus(dispatchId, { to: 'failed', event: 'REJECTED', failureCode: '131026', occurredAt: new Date().toISOString() }, env.table)).toBe(true);

  // The publisher gave this batch up (it never ran on it); the operator runs the runbook's redrive.
  const batch = (await streamRecords(env.table)).filter(({ record }) => record.dynamodb?.Keys?.pk?.S === `DSP#${dispatchId}` && record.eventName === 'MODIFY');
  const answer = await admin('delivery-events', 'redrive', '--stream-arn', batch[0]!.streamArn, '--shard', batch[0]!.shardId, '--from', batch[0]!.record.dynamodb!.SequenceNumber!, '--to', batch.at(-1)!.record.dynamodb!.SequenceNumber!);
  expect(answer.status).toBe(0);

  expect(await checkSend(ws, { phone: to, templateId: TEMPLATE_ID }, env.table)).toMatchObject({ sent: false });
  const again = await sendTemplateMessage(sendCommand(ws, { to, now: new Date() }), { store: env.table, queue: env.queues }).then(
    (result) => result.status,
    (error: { code?: string }) => error.code,
  );
  expect(again).toBe('queued');
});

it('fails, writing nothing, when the shard ends before the batch’s last record', async () => {
  const { shardId, from, to, batch } = await deliveredBatch();
  const streams = servedStream();
  streams.on(GetShardIteratorCommand).resolves({ ShardIterator: 'it-0' });
  // A closed shard: its last page, then no iterator.
  streams.on(GetRecordsCommand, { ShardIterator: 'it-0' }).resolves({ Records: [batch[0]!.record], NextShardIterator: undefined });

  const answer = await admin('delivery-events', 'redrive', '--shard', shardId, '--from', from, '--to', to);
  expect([answer.status, answer.stderr.split('\n').at(-1)]).toEqual([1, `admin: Read 1 stream records of shard ${shardId} without reaching --to ${to}, so nothing was written: check the range, or run it again`]);
});

it('exits 2, reading nothing, for --from after --to: a mistake in the command line', async () => {
  const streams = servedStream();
  const answer = await admin('delivery-events', 'redrive', '--shard', 'shardId-1', '--from', '200', '--to', '100');
  expect([answer.status, answer.stderr.split('\n').at(-1)]).toEqual([2, 'admin: --from 200 comes after --to 100']);
  expect(streams.calls()).toHaveLength(0);
});
