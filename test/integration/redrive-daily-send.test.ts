import { checkSend } from '../../lambdas/domain/delivery/send-check';
import { claimDispatch } from '../../lambdas/domain/delivery/delivery-attempt';
import { applyStatus } from '../../lambdas/domain/delivery/dispatch-status';
import { sendTemplateMessage } from '../../lambdas/domain/messages/send-message';
import { runAdmin } from '../../lib/admin/cli';
import { sendCommand, sendingWorkspace } from '../support/send-commands';
import { TEMPLATE_ID } from '../support/send-fixtures';
import { useTableAndQueues } from '../support/sqs';
import { streamRecords } from '../support/table-stream';

/**
 * Decision 192: the change that fails a dispatch gives back its day's send (dedupe wib-day), written
 * by the table's stream consumer. When that consumer gives the batch up (stream-batches-failed), the
 * runbook's recovery is `delivery-events redrive` over the batch (docs/operations.md). What the
 * consumer would have written must be written by the redrive: else send-check says "not sent" and a
 * new send of the message the customer never got is 409 duplicate_send for the rest of the day.
 */
const env = useTableAndQueues();

async function admin(...argv: string[]) {
  const out: string[] = [];
  const err: string[] = [];
  const status = await runAdmin(argv, { out: (text) => out.push(text), err: (text) => err.push(text), env: {}, target: async () => ({ ...env.table, description: 'test table' }) });
  return { status, stdout: out.join('\n'), stderr: err.join('\n') };
}

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
