import { claimDispatch } from '../../lambdas/domain/delivery/delivery-attempt';
import { deliveryEventsForPhones } from '../../lambdas/domain/delivery/delivery-events';
import { applyReportedTime, applyReadReceipt, applyStatus } from '../../lambdas/domain/delivery/dispatch-status';
import { sendTemplateMessage } from '../../lambdas/domain/messages/send-message';
import { publishBatch } from '../../lambdas/handlers/publish-webhook-events';
import { runAdmin } from '../../lib/admin/cli';
import { lambdaContext } from '../../lib/local/api-gateway-event';
import { toLambdaRecord } from '../../lib/local/stream-poller';
import { sendCommand, sendingWorkspace } from '../support/send-commands';
import { useTableAndQueues } from '../support/sqs';
import { streamRecords } from '../support/table-stream';

/**
 * The stream consumer gave up on a batch (stream-batches-failed: 11 tries or a day) that held the
 * read's move of a dispatch to delivered; the delivered that came after the read (decision 200)
 * was in a later batch, which the consumer wrote. The runbook then redrives the failed batch's
 * range from its DDBStreamBatchInfo, "safe to repeat". Delivery-status must still hold one
 * DELIVERED event, at the delivered's own time.
 */
const env = useTableAndQueues();

it('keeps one DELIVERED event, at its corrected time, after a redrive of the read’s batch alone', async () => {
  const ws = await sendingWorkspace(env.table);
  const { dispatchId } = await sendTemplateMessage(sendCommand(ws, { to: '+6281234560091', now: new Date('2026-10-01T00:00:00.000Z') }), { store: env.table, queue: env.queues });
  await claimDispatch(dispatchId, new Date(), env.table);
  expect(await applyStatus(dispatchId, { to: 'sent', occurredAt: '2026-10-01T06:00:00.000Z' }, env.table)).toBe(true);
  // The read came first and moved the dispatch to delivered at its time.
  expect(await applyStatus(dispatchId, { to: 'delivered', event: 'DELIVERED', occurredAt: '2026-10-01T06:00:20.000Z' }, env.table)).toBe(true);
  expect(await applyReadReceipt(dispatchId, '2026-10-01T06:00:20.000Z', env.table)).toBe(true);
  const failedBatch = (await streamRecords(env.table)).filter(({ record }) => record.dynamodb?.Keys?.pk?.S === `DSP#${dispatchId}` && record.eventName === 'MODIFY');
  // The delivered, in a later POST.
  expect(await applyReportedTime(dispatchId, 'delivered', '2026-10-01T06:00:05.000Z', env.table)).toBe(true);
  const later = (await streamRecords(env.table)).filter(({ record }) => record.dynamodb?.Keys?.pk?.S === `DSP#${dispatchId}` && record.eventName === 'MODIFY').slice(failedBatch.length);
  expect(later).toHaveLength(1);

  // The consumer, past the batch it gave up on, writes the later one.
  const region = process.env.AWS_REGION!;
  const { batchItemFailures } = await publishBatch({ Records: later.map(({ record, streamArn }) => toLambdaRecord(record, streamArn, region)) }, lambdaContext('publish-webhook-events', 60_000));
  expect(batchItemFailures).toEqual([]);

  // The runbook's redrive of the batch the consumer gave up on.
  const first = failedBatch[0]!;
  const status = await runAdmin(['delivery-events', 'redrive', '--shard', first.shardId, '--from', first.record.dynamodb!.SequenceNumber!, '--to', failedBatch.at(-1)!.record.dynamodb!.SequenceNumber!], {
    out: () => {},
    err: () => {},
    env: {},
    target: async () => ({ ...env.table, description: 'test table' }),
  });
  expect(status).toBe(0);

  const events = (await deliveryEventsForPhones(ws, ['+6281234560091'], { startDate: '2026-10-01', endDate: '2026-10-01' }, env.table))[0]!.events;
  expect(events.map(({ status, occurredAt }) => [status, occurredAt])).toEqual([
    ['ACCEPTED', '2026-10-01T06:00:00.000Z'],
    ['DELIVERED', '2026-10-01T06:00:05.000Z'],
  ]);
});
