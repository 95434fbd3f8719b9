import { randomUUID } from 'node:crypto';
import { PutCommand } from '@aws-sdk/lib-dynamodb';
import { claimDispatch } from '../../lambdas/domain/delivery/delivery-attempt';
import { deliveryEventsForPhones } from '../../lambdas/domain/delivery/delivery-events';
import { applyReportedTime, applyPricing, applyReadReceipt, applyStatus } from '../../lambdas/domain/delivery/dispatch-status';
import { sendTemplateMessage } from '../../lambdas/domain/messages/send-message';
import { saveTemplate } from '../../lambdas/domain/templates/template-repository';
import { saveWorkspace } from '../../lambdas/domain/workspaces/workspace-repository';
import { runAdmin } from '../../lib/admin/cli';
import { template, TEMPLATE_ID } from '../support/send-fixtures';
import { findProviderMessage } from '../../lambdas/domain/delivery/provider-message';
import { useTableAndQueues } from '../support/sqs';
import { runStreamConsumer } from '../support/stream-consumer';
import { streamRecords } from '../support/table-stream';

/**
 * Delivery-status on DynamoDB Local: a number's events live in its own partition by time (decision
 * 101), written by the table's stream consumer from the status moves' records (decision 112), and
 * events written before, under their dispatch and indexed by number on gsi1, still answer, merged
 * in time order.
 */
const env = useTableAndQueues();
const PHONE = '+6281234567890';

async function workspace(): Promise<string> {
  const ws = `ws-${randomUUID().slice(0, 8)}`;
  await saveWorkspace({ id: ws, name: ws, rupiahPerCredit: 150 }, new Date(), env.table);
  await saveTemplate(ws, template, env.table);
  return ws;
}

/**
 * A dispatch to `to`, accepted by the provider at `sentAt` and, when given, delivered at
 * `deliveredAt` or refused at `failedAt`; its changes then taken by the table's stream consumer.
 */
async function message(ws: string, to: string, at: { sentAt?: string; deliveredAt?: string; failedAt?: string }): Promise<string> {
  const { dispatchId } = await sendTemplateMessage(
    { workspaceId: ws, apiClient: { id: randomUUID(), name: 'k' }, to, templateId: TEMPLATE_ID, variables: { name: 'Budi', order: '1' }, tagIds: [], trackingTags: [], now: new Date('2026-10-01T00:00:00.000Z') },
    { store: env.table, queue: env.queues },
  );
  await claimDispatch(dispatchId, new Date(), env.table);
  if (at.sentAt) expect(await applyStatus(dispatchId, { to: 'sent', occurredAt: at.sentAt }, env.table)).toBe(true);
  if (at.deliveredAt) expect(await applyStatus(dispatchId, { to: 'delivered', event: 'DELIVERED', occurredAt: at.deliveredAt }, env.table)).toBe(true);
  if (at.failedAt) expect(await applyStatus(dispatchId, { to: 'failed', event: 'REJECTED', failureCode: '131026', occurredAt: at.failedAt }, env.table)).toBe(true);
  await runStreamConsumer(env.table);
  return dispatchId;
}

describe('delivery-status against DynamoDB Local', () => {
  it('lists a failure WhatsApp reported within the second of our sent time after the ACCEPTED it follows, at that time', async () => {
    const ws = await workspace();
    // Our sentAt is our clock's, to the millisecond; WhatsApp's `failed` names its whole second.
    const id = await message(ws, PHONE, { sentAt: '2026-10-02T03:00:00.734Z', failedAt: '2026-10-02T03:00:00.000Z' });

    const [answer] = await deliveryEventsForPhones(ws, [PHONE], { startDate: '2026-10-02', endDate: '2026-10-02' }, env.table);
    expect(answer!.events).toEqual([
      { dispatchId: id, status: 'ACCEPTED', occurredAt: '2026-10-02T03:00:00.734Z' },
      { dispatchId: id, status: 'REJECTED', occurredAt: '2026-10-02T03:00:00.734Z', failureCode: '131026' },
    ]);
  });

  it('answers each phone as given with its events oldest first, inside the WIB days asked for', async () => {
    const ws = await workspace();
    // 2026-10-02 in WIB runs from 2026-10-01T17:00Z up to, not including, 2026-10-02T17:00Z.
    const first = await message(ws, '081234567890', { sentAt: '2026-10-01T16:59:59.000Z', deliveredAt: '2026-10-01T17:00:00.000Z' });
    const second = await message(ws, '081234567890', { sentAt: '2026-10-02T03:00:00.000Z', failedAt: '2026-10-02T17:00:00.000Z' });
    const refused = await message(ws, '081234567890', { failedAt: '2026-10-02T09:00:00.000Z' });

    const answer = await deliveryEventsForPhones(ws, ['0812-3456-7890', 'not a phone', '081299998888'], { startDate: '2026-10-02', endDate: '2026-10-02' }, env.table);
    expect(answer).toEqual([
      {
        phone: '0812-3456-7890',
        events: [
          { dispatchId: first, status: 'DELIVERED', occurredAt: '2026-10-01T17:00:00.000Z' },
          { dispatchId: second, status: 'ACCEPTED', occurredAt: '2026-10-02T03:00:00.000Z' },
          { dispatchId: refused, status: 'REJECTED', occurredAt: '2026-10-02T09:00:00.000Z', failureCode: '131026' },
        ],
      },
      { phone: 'not a phone', events: [] },
      { phone: '081299998888', events: [] },
    ]);
  });

  it('merges events written before the number partition (under their dispatch, on gsi1) in time order', async () => {
    const ws = await workspace();
    const current = await message(ws, PHONE, { sentAt: '2026-10-01T02:00:00.000Z', deliveredAt: '2026-10-01T04:00:00.000Z' });
    const old = randomUUID();
    await writtenBeforeNumberPartition(ws, old, 'ACCEPTED', '2026-10-01T01:00:00.000Z');
    await writtenBeforeNumberPartition(ws, old, 'DELIVERED', '2026-10-01T03:00:00.000Z');

    const [answer] = await deliveryEventsForPhones(ws, [PHONE], { startDate: '2026-10-01', endDate: '2026-10-01' }, env.table);
    expect(answer!.events).toEqual([
      { dispatchId: old, status: 'ACCEPTED', occurredAt: '2026-10-01T01:00:00.000Z' },
      { dispatchId: current, status: 'ACCEPTED', occurredAt: '2026-10-01T02:00:00.000Z' },
      { dispatchId: old, status: 'DELIVERED', occurredAt: '2026-10-01T03:00:00.000Z' },
      { dispatchId: current, status: 'DELIVERED', occurredAt: '2026-10-01T04:00:00.000Z' },
    ]);
  });

  it('writes a repeated callback’s event once, and never shows another workspace’s events', async () => {
    const mine = await workspace();
    const theirs = await workspace();
    const dispatchId = await message(theirs, PHONE, { sentAt: '2026-10-01T02:00:00.000Z', deliveredAt: '2026-10-01T04:00:00.000Z' });
    expect(await applyStatus(dispatchId, { to: 'delivered', event: 'DELIVERED', occurredAt: '2026-10-01T05:00:00.000Z' }, env.table)).toBe(false);
    await runStreamConsumer(env.table);

    const range = { startDate: '2026-10-01', endDate: '2026-10-01' };
    expect((await deliveryEventsForPhones(theirs, [PHONE], range, env.table))[0]!.events.map((event) => event.status)).toEqual(['ACCEPTED', 'DELIVERED']);
    expect(await deliveryEventsForPhones(mine, [PHONE], range, env.table)).toEqual([{ phone: PHONE, events: [] }]);
  });

  it('has a status move name its events on the dispatch and write none itself; the stream consumer writes them, and a write after the move names none', async () => {
    const ws = await workspace();
    const { dispatchId } = await sendTemplateMessage(
      { workspaceId: ws, apiClient: { id: randomUUID(), name: 'k' }, to: PHONE, templateId: TEMPLATE_ID, variables: { name: 'Budi', order: '1' }, tagIds: [], trackingTags: [], now: new Date('2026-10-01T00:00:00.000Z') },
      { store: env.table, queue: env.queues },
    );
    const stored = async () => {
      const items = await env.table.scanAll();
      return { dispatch: items.find((item) => item.pk === `DSP#${dispatchId}`)!, events: items.filter((item) => item.entity === 'deliveryEvent' && item.dispatchId === dispatchId) };
    };
    await claimDispatch(dispatchId, new Date(), env.table);
    expect((await stored()).dispatch).not.toHaveProperty('deliveryEvents');

    expect(await applyStatus(dispatchId, { to: 'sent', occurredAt: '2026-10-01T01:00:00.000Z' }, env.table)).toBe(true);
    expect(await stored()).toMatchObject({ dispatch: { deliveryEvents: ['ACCEPTED'], sentAt: '2026-10-01T01:00:00.000Z' }, events: [] });
    expect(await applyPricing(dispatchId, { billable: true, category: 'utility', pricingModel: 'PMP', type: 'regular' }, '2026-10-01T01:30:00.000Z', env.table)).toBe(true);
    expect((await stored()).dispatch).not.toHaveProperty('deliveryEvents');
    expect(await applyStatus(dispatchId, { to: 'delivered', event: 'DELIVERED', occurredAt: '2026-10-01T02:00:00.000Z' }, env.table)).toBe(true);
    expect(await stored()).toMatchObject({ dispatch: { deliveryEvents: ['DELIVERED'] }, events: [] });
    expect(await applyReadReceipt(dispatchId, '2026-10-01T03:00:00.000Z', env.table)).toBe(true);
    expect((await stored()).dispatch).not.toHaveProperty('deliveryEvents');

    await runStreamConsumer(env.table);
    const [answer] = await deliveryEventsForPhones(ws, [PHONE], { startDate: '2026-10-01', endDate: '2026-10-01' }, env.table);
    expect(answer!.events).toEqual([
      { dispatchId, status: 'ACCEPTED', occurredAt: '2026-10-01T01:00:00.000Z' },
      { dispatchId, status: 'DELIVERED', occurredAt: '2026-10-01T02:00:00.000Z' },
    ]);
  });

  // A read that came before its delivered moved the dispatch at the read's time (decision 200).
  it('moves deliveredAt and its DELIVERED event back to a later report’s earlier delivery, never before the send, and only earlier', async () => {
    const ws = await workspace();
    const dispatchId = await message(ws, PHONE, { sentAt: '2026-10-01T01:00:00.000Z', deliveredAt: '2026-10-01T01:05:00.000Z' });
    const item = async () => (await env.table.scanAll()).find((candidate) => candidate.pk === `DSP#${dispatchId}`)!;
    const events = async () => (await deliveryEventsForPhones(ws, [PHONE], { startDate: '2026-10-01', endDate: '2026-10-01' }, env.table))[0]!.events.map(({ status, occurredAt }) => [status, occurredAt]);

    // The same time, or a later one (Meta's retry of an older POST), moves nothing.
    expect(await applyReportedTime(dispatchId, 'delivered', '2026-10-01T01:05:00.000Z', env.table)).toBe(false);
    expect(await applyReportedTime(dispatchId, 'delivered', '2026-10-01T01:06:00.000Z', env.table)).toBe(false);
    // WhatsApp's whole seconds may fall before our own sent time: never delivered before it was sent.
    expect(await applyReportedTime(dispatchId, 'delivered', '2026-10-01T00:59:59.000Z', env.table)).toBe(true);
    expect(await item()).toMatchObject({ deliveredAt: '2026-10-01T01:00:00.000Z', deliveredEventMovedFrom: '2026-10-01T01:05:00.000Z', deliveryEvents: ['DELIVERED'] });
    await runStreamConsumer(env.table);
    expect(await events()).toEqual([
      ['ACCEPTED', '2026-10-01T01:00:00.000Z'],
      ['DELIVERED', '2026-10-01T01:00:00.000Z'],
    ]);

    // A write after the correction names no move, so a stream record of it deletes nothing.
    expect(await applyReadReceipt(dispatchId, '2026-10-01T02:00:00.000Z', env.table)).toBe(true);
    const after = await item();
    expect([after.deliveredEventMovedFrom, after.deliveryEvents, after.readAt]).toEqual([undefined, undefined, '2026-10-01T02:00:00.000Z']);
    // Nothing but a delivered dispatch is redated.
    const failed = await message(ws, PHONE, { sentAt: '2026-10-01T03:00:00.000Z', failedAt: '2026-10-01T03:05:00.000Z' });
    expect(await applyReportedTime(failed, 'delivered', '2026-10-01T03:01:00.000Z', env.table)).toBe(false);
  });

  // A delivered (or read) that came before its sent counted the dispatch as sent at its own time (decision 236).
  it('moves sentAt and its ACCEPTED event back to a later sent report’s earlier time, never before the dispatch was made, and only where its delivery set sentAt', async () => {
    const ws = await workspace();
    const dispatchId = await message(ws, PHONE, { deliveredAt: '2026-10-01T01:05:00.000Z' });
    const item = async () => (await env.table.scanAll()).find((candidate) => candidate.pk === `DSP#${dispatchId}`)!;
    const events = async () => (await deliveryEventsForPhones(ws, [PHONE], { startDate: '2026-10-01', endDate: '2026-10-01' }, env.table))[0]!.events.map(({ dispatchId: id, status, occurredAt }) => [id, status, occurredAt]);

    expect(await item()).toMatchObject({ sentAt: '2026-10-01T01:05:00.000Z', sentAtFromDelivery: true });
    expect(await applyReportedTime(dispatchId, 'sent', '2026-10-01T01:05:00.000Z', env.table)).toBe(false);
    // A second before the dispatch was made, in WhatsApp's whole seconds: sent when it was made.
    expect(await applyReportedTime(dispatchId, 'sent', '2026-09-30T23:59:59.000Z', env.table)).toBe(true);
    expect(await item()).toMatchObject({ sentAt: '2026-10-01T00:00:00.000Z', deliveredAt: '2026-10-01T01:05:00.000Z', acceptedEventMovedFrom: '2026-10-01T01:05:00.000Z', deliveryEvents: ['ACCEPTED'] });
    expect(await item()).not.toHaveProperty('deliveredEventMovedFrom');
    // sentAt is the sent's own now: no other sent moves it.
    expect(await item()).not.toHaveProperty('sentAtFromDelivery');
    await runStreamConsumer(env.table);
    expect(await events()).toEqual([
      [dispatchId, 'ACCEPTED', '2026-10-01T00:00:00.000Z'],
      [dispatchId, 'DELIVERED', '2026-10-01T01:05:00.000Z'],
    ]);
    // A write after the correction names no move.
    expect(await applyReadReceipt(dispatchId, '2026-10-01T02:00:00.000Z', env.table)).toBe(true);
    expect(await item()).not.toHaveProperty('acceptedEventMovedFrom');

    // Sent before it was delivered: its sentAt is the sent move's (our answer's), and Meta's `sent` whole second moves nothing.
    const sent = await message(ws, PHONE, { sentAt: '2026-10-01T03:00:00.734Z', deliveredAt: '2026-10-01T03:01:00.000Z' });
    expect(await applyReportedTime(sent, 'sent', '2026-10-01T03:00:00.000Z', env.table)).toBe(false);
  });

  // Decision 121 / 236, docs/api.md: only "a `sent` that comes after the `delivered` or `read` that set `sentAt`" moves it.
  // Here our own answer set sentAt (to the millisecond), and WhatsApp's `delivered`, in the same whole second, was recorded
  // at that sentAt (times keep their order). sentAt === deliveredAt then, though the delivery never set sentAt: Meta's
  // `sent` for the same whole second, arriving after the delivered (webhooks are not ordered), must move nothing.
  it('leaves our own answer’s sentAt, and its ACCEPTED event, when the delivered in the same whole second was recorded at it', async () => {
    const ws = await workspace();
    const dispatchId = await message(ws, PHONE, { sentAt: '2026-10-01T03:00:00.734Z', deliveredAt: '2026-10-01T03:00:00.000Z' });
    const item = async () => (await env.table.scanAll()).find((candidate) => candidate.pk === `DSP#${dispatchId}`)!;
    const events = async () => (await deliveryEventsForPhones(ws, [PHONE], { startDate: '2026-10-01', endDate: '2026-10-01' }, env.table))[0]!.events.map(({ status, occurredAt }) => [status, occurredAt]);
    expect(await item()).toMatchObject({ sentAt: '2026-10-01T03:00:00.734Z', deliveredAt: '2026-10-01T03:00:00.734Z' });

    const moved = await applyReportedTime(dispatchId, 'sent', '2026-10-01T03:00:00.000Z', env.table);
    await runStreamConsumer(env.table);

    expect({ moved, sentAt: (await item()).sentAt, events: await events() }).toEqual({
      moved: false,
      sentAt: '2026-10-01T03:00:00.734Z',
      events: [
        ['ACCEPTED', '2026-10-01T03:00:00.734Z'],
        ['DELIVERED', '2026-10-01T03:00:00.734Z'],
      ],
    });
  });

  it('gives a first report of delivered both its events at once, and a failure of our own (retries exhausted) its time but no REJECTED event', async () => {
    const ws = await workspace();
    const delivered = await message(ws, PHONE, { deliveredAt: '2026-10-01T04:00:00.000Z' });
    const { dispatchId: exhausted } = await sendTemplateMessage(
      { workspaceId: ws, apiClient: { id: randomUUID(), name: 'k' }, to: PHONE, templateId: TEMPLATE_ID, variables: { name: 'Budi', order: '2' }, tagIds: [], trackingTags: [], now: new Date('2026-10-01T00:00:00.000Z') },
      { store: env.table, queue: env.queues },
    );
    await claimDispatch(exhausted, new Date(), env.table);
    expect(await applyStatus(exhausted, { to: 'failed', failureCode: 'retries_exhausted:http_503', occurredAt: '2026-10-01T05:00:00.000Z' }, env.table)).toBe(true);
    await runStreamConsumer(env.table);

    const item = (await env.table.scanAll()).find((candidate) => candidate.pk === `DSP#${exhausted}`)!;
    expect(item).toMatchObject({ status: 'failed', failedAt: '2026-10-01T05:00:00.000Z' });
    expect(item).not.toHaveProperty('deliveryEvents');
    const [answer] = await deliveryEventsForPhones(ws, [PHONE], { startDate: '2026-10-01', endDate: '2026-10-01' }, env.table);
    expect(answer!.events).toEqual([
      { dispatchId: delivered, status: 'ACCEPTED', occurredAt: '2026-10-01T04:00:00.000Z' },
      { dispatchId: delivered, status: 'DELIVERED', occurredAt: '2026-10-01T04:00:00.000Z' },
    ]);
  });

  it('writes the events and the wamid item of a stream batch the consumer gave up on with the admin CLI’s `delivery-events redrive`, from the stream, as often as it is run', async () => {
    const ws = await workspace();
    const { dispatchId } = await sendTemplateMessage(
      { workspaceId: ws, apiClient: { id: randomUUID(), name: 'k' }, to: '+6281234560077', templateId: TEMPLATE_ID, variables: { name: 'Budi', order: '3' }, tagIds: [], trackingTags: [], now: new Date('2026-10-01T00:00:00.000Z') },
      { store: env.table, queue: env.queues },
    );
    await claimDispatch(dispatchId, new Date(), env.table);
    const wamid = `wamid.redrive-${randomUUID()}`;
    expect(await applyStatus(dispatchId, { to: 'sent', occurredAt: '2026-10-01T06:00:00.000Z', providerMessageId: wamid }, env.table)).toBe(true);
    expect(await applyStatus(dispatchId, { to: 'delivered', event: 'DELIVERED', occurredAt: '2026-10-01T06:00:05.000Z' }, env.table)).toBe(true);
    // The batch as the webhook DLQ describes it: its shard and first and last sequence numbers.
    const stream = (await streamRecords(env.table)).map(({ shardId, record }) => ({ shardId, sequenceNumber: record.dynamodb!.SequenceNumber!, eventName: record.eventName!, pk: record.dynamodb!.Keys?.pk?.S }));
    const batch = stream.filter((record) => record.pk === `DSP#${dispatchId}` && record.eventName === 'MODIFY');
    const range = ['--shard', batch[0]!.shardId, '--from', batch[0]!.sequenceNumber, '--to', batch.at(-1)!.sequenceNumber];
    // Whatever else was written meanwhile has records in the range too.
    const inRange = stream.filter((record) => record.shardId === batch[0]!.shardId && BigInt(record.sequenceNumber) >= BigInt(batch[0]!.sequenceNumber) && BigInt(record.sequenceNumber) <= BigInt(batch.at(-1)!.sequenceNumber));
    const eventsNow = async () => (await deliveryEventsForPhones(ws, ['+6281234560077'], { startDate: '2026-10-01', endDate: '2026-10-01' }, env.table))[0]!.events;
    expect(await eventsNow()).toEqual([]);
    expect(await findProviderMessage(wamid, env.table)).toBeUndefined();

    for (let run = 0; run < 2; run++) {
      const answer = await admin('delivery-events', 'redrive', ...range, '--json');
      expect(answer).toMatchObject({ status: 0 });
      expect(JSON.parse(answer.stdout)).toEqual({ records: inRange.length, dispatchChanges: batch.length, events: 2, wamids: 1, dailySendReleases: 0 });
      expect(await findProviderMessage(wamid, env.table)).toEqual({ kind: 'dispatch', workspaceId: ws, dispatchId });
      expect(await eventsNow()).toEqual([
        { dispatchId, status: 'ACCEPTED', occurredAt: '2026-10-01T06:00:00.000Z' },
        { dispatchId, status: 'DELIVERED', occurredAt: '2026-10-01T06:00:05.000Z' },
      ]);
    }
    expect(await admin('delivery-events', 'redrive', '--shard', batch[0]!.shardId, '--from', batch.at(-1)!.sequenceNumber, '--to', batch[0]!.sequenceNumber)).toMatchObject({ status: 2 });
    expect(await admin('delivery-events', 'redrive', '--shard', batch[0]!.shardId, '--from', 'latest', '--to', batch[0]!.sequenceNumber)).toMatchObject({
      status: 2,
      stderr: expect.stringContaining('--from takes a stream sequence number'),
    });
  });
});

/** A delivery event as stored before decision 101: under its dispatch, indexed by number on gsi1. */
async function writtenBeforeNumberPartition(ws: string, dispatchId: string, status: string, occurredAt: string) {
  await env.table.db.send(
    new PutCommand({
      TableName: env.table.tableName,
      Item: { pk: `DSP#${dispatchId}`, sk: `EVT#${status}`, gsi1pk: `WS#${ws}#P#${PHONE}`, gsi1sk: `${occurredAt}#${dispatchId}#${status}`, entity: 'deliveryEvent', dispatchId, workspaceId: ws, phone: PHONE, status, occurredAt },
    }),
  );
}

/** One admin command line, run in-process against this file's table. */
async function admin(...argv: string[]) {
  const out: string[] = [];
  const err: string[] = [];
  const status = await runAdmin(argv, { out: (text) => out.push(text), err: (text) => err.push(text), env: {}, target: async () => ({ ...env.table, description: 'test table' }) });
  return { status, stdout: out.join('\n'), stderr: err.join('\n') };
}
