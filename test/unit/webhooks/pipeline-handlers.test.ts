import { SendMessageBatchCommand, SQSClient } from '@aws-sdk/client-sqs';
import { marshall } from '@aws-sdk/util-dynamodb';
import { BatchWriteCommand, DynamoDBDocumentClient, QueryCommand } from '@aws-sdk/lib-dynamodb';
import { mockClient } from 'aws-sdk-client-mock';
import type { DynamoDBRecord } from 'aws-lambda';
import { draftDispatch, toMessageStatusResource } from '../../../lambdas/domain/messages/dispatch';
import { dispatchItem } from '../../../lambdas/domain/messages/dispatch-repository';
import { outboxPut } from '../../../lambdas/domain/webhooks/outbox-item';
import type { SubscribableEvent } from '../../../lambdas/domain/webhooks/webhook-event';
import { publishBatch } from '../../../lambdas/handlers/publish-webhook-events';
import { accessPatterns, keys } from '../../../lambdas/shared/table';
import { captureLogLines } from '../../support/log-lines';
import { lambdaContext, resetContainerCaches } from '../../../lib/testing';
import { template } from '../../support/send-fixtures';
import { storedWebhookEndpoint } from '../../support/webhooks';

const ddb = mockClient(DynamoDBDocumentClient);
const sqs = mockClient(SQSClient);
const NOW = new Date('2026-11-20T08:00:00.000Z');
beforeEach(() => {
  ddb.reset();
  sqs.reset();
  resetContainerCaches();
  sqs.on(SendMessageBatchCommand).resolves({ Successful: [], Failed: [] });
  ddb.on(BatchWriteCommand).resolves({});
});

const endpoint = (workspaceId: string, id: string, url: string, overrides: Record<string, unknown> = {}) => storedWebhookEndpoint({ workspaceId, id, url, at: NOW }, overrides);
const streamRecord = (item: Record<string, unknown>, eventName: 'INSERT' | 'MODIFY' | 'REMOVE' = 'INSERT', sequence = '1'): DynamoDBRecord => ({
  eventID: `c81e728d9d4c2f636f067f89cc1486${sequence.padStart(2, '0')}`,
  eventName,
  eventSource: 'aws:dynamodb',
  dynamodb: { SequenceNumber: sequence, NewImage: marshall(item) as never },
});
const received = {
  id: 'evt_0000000000000000000000000000',
  type: 'message.received',
  timestamp: NOW.toISOString(),
  data: { conversationId: 'c', message: { id: 'wamid.1' } },
} as const satisfies SubscribableEvent;
const outboxItem = (workspaceId: string, event: SubscribableEvent) => {
  const write = outboxPut(workspaceId, event);
  if (!('Put' in write) || !write.Put.Item) throw new Error('an outbox write is a Put');
  return write.Put.Item;
};
const dispatch = (workspaceId: string) =>
  draftDispatch(
    { workspaceId, apiClient: { id: 'k', name: 'k' }, to: '+6281234567890', variables: { name: 'Budi', order: 'A-1' }, tagIds: [], trackingTags: ['promo'], now: NOW },
    template,
    template.versions[0]!,
    { rupiahPerCredit: 150 },
  );
const enqueued = () => sqs.commandCalls(SendMessageBatchCommand).flatMap((call) => (call.args[0].input.Entries ?? []).map((entry) => JSON.parse(entry.MessageBody!) as Record<string, unknown>));

describe('the outbox publisher (DynamoDB Streams)', () => {
  it('fans an outbox insert out to the enabled endpoints of its own workspace that take its type, one message each', async () => {
    ddb.on(QueryCommand, { ...accessPatterns.webhookEndpointsOfWorkspace('ws-a') }).resolves({
      Items: [
        endpoint('ws-a', `whe_${'1'.repeat(32)}`, 'https://a.example/all'),
        endpoint('ws-a', `whe_${'2'.repeat(32)}`, 'https://a.example/statuses', { events: ['message.status.updated'] }),
        endpoint('ws-a', `whe_${'3'.repeat(32)}`, 'https://a.example/off', { status: 'disabled', disabledReason: 'gone' }),
        endpoint('ws-a', `whe_${'4'.repeat(32)}`, 'https://a.example/received', { events: ['message.received', 'template.status.updated'] }),
      ],
    });

    const answer = await publishBatch({ Records: [streamRecord(outboxItem('ws-a', received))] }, lambdaContext('publish-webhook-events'));

    expect(answer).toEqual({ batchItemFailures: [] });
    expect(enqueued().map((message) => message.endpointId)).toEqual([`whe_${'1'.repeat(32)}`, `whe_${'4'.repeat(32)}`]);
    expect(enqueued()[0]).toEqual({ workspaceId: 'ws-a', endpointId: `whe_${'1'.repeat(32)}`, eventId: received.id, type: 'message.received', payload: JSON.stringify(received), attempt: 1 });
    // Only the event's own workspace's endpoints were read.
    expect(ddb.commandCalls(QueryCommand).map((call) => call.args[0].input.ExpressionAttributeValues)).toEqual([{ ':pk': 'WS#ws-a#WHE', ':prefix': 'WHE#' }]);
  });

  it('puts each event in its own workspace’s group, the tenant SQS fair queues keep fair, when one batch carries several workspaces', async () => {
    ddb.on(QueryCommand, { ...accessPatterns.webhookEndpointsOfWorkspace('ws-a') }).resolves({ Items: [endpoint('ws-a', `whe_${'1'.repeat(32)}`, 'https://a.example/all')] });
    ddb.on(QueryCommand, { ...accessPatterns.webhookEndpointsOfWorkspace('ws-c') }).resolves({ Items: [endpoint('ws-c', `whe_${'2'.repeat(32)}`, 'https://c.example/all')] });
    const records = [
      streamRecord(outboxItem('ws-a', received), 'INSERT', '1'),
      streamRecord(outboxItem('ws-c', { ...received, id: 'evt_0000000000010000000000000000' }), 'INSERT', '2'),
    ];

    expect(await publishBatch({ Records: records }, lambdaContext('publish-webhook-events'))).toEqual({ batchItemFailures: [] });

    const entries = sqs.commandCalls(SendMessageBatchCommand).flatMap((call) => call.args[0].input.Entries ?? []);
    expect(entries.map((entry) => [(JSON.parse(entry.MessageBody!) as { workspaceId: string }).workspaceId, entry.MessageGroupId])).toEqual([
      ['ws-a', 'ws-a'],
      ['ws-c', 'ws-c'],
    ]);
  });

  it('passes over every other stream record: other items, a dispatch created, modifications and expiries of outbox items', async () => {
    const answer = await publishBatch(
      {
        Records: [
          streamRecord({ ...keys.workspace('ws-a'), entity: 'workspace' }, 'MODIFY'),
          streamRecord(dispatchItem(dispatch('ws-a')), 'INSERT'),
          streamRecord(outboxItem('ws-a', received), 'MODIFY'),
          streamRecord(outboxItem('ws-a', received), 'REMOVE'),
        ],
      },
      lambdaContext('publish-webhook-events'),
    );
    expect(answer).toEqual({ batchItemFailures: [] });
    expect(ddb.calls()).toHaveLength(0);
    expect(sqs.calls()).toHaveLength(0);
  });

  it('publishes a dispatch’s change as message.status.updated: the GET body the write left, an id from the dispatch and its sequence, the change’s time', async () => {
    ddb.on(QueryCommand).resolves({ Items: [endpoint('ws-a', `whe_${'1'.repeat(32)}`, 'https://a.example/all')] });
    const delivered = { ...dispatch('ws-a'), status: 'delivered' as const, sentAt: '2026-11-20T08:00:01.000Z', deliveredAt: '2026-11-20T08:00:03.000Z', updatedAt: '2026-11-20T08:00:04.000Z', sequence: 4 };
    // A status move: its time is the updatedAt it wrote.
    const image = { ...dispatchItem(delivered), providerMessageId: 'wamid.1' };

    // The same record twice, as a retried stream batch hands it over again.
    await publishBatch({ Records: [streamRecord(image, 'MODIFY', '7')] }, lambdaContext('publish-webhook-events'));
    await publishBatch({ Records: [streamRecord(image, 'MODIFY', '7')] }, lambdaContext('publish-webhook-events'));

    const [first, again] = enqueued();
    expect(again).toEqual(first);
    expect(first).toMatchObject({ workspaceId: 'ws-a', endpointId: `whe_${'1'.repeat(32)}`, type: 'message.status.updated', attempt: 1 });
    const body = JSON.parse(first!.payload as string) as Record<string, unknown>;
    expect(body).toStrictEqual({ id: first!.eventId, type: 'message.status.updated', timestamp: '2026-11-20T08:00:04.000Z', data: toMessageStatusResource(delivered) });
    // Sortable by time like every event id: the change's milliseconds, then 16 hex digits of its own.
    expect(first!.eventId).toMatch(new RegExp(`^evt_${Date.parse('2026-11-20T08:00:04.000Z').toString(16).padStart(12, '0')}[0-9a-f]{16}$`));
    const next = await (async () => {
      sqs.resetHistory();
      await publishBatch({ Records: [streamRecord({ ...image, sequence: 5, readAt: '2026-11-20T08:00:05.000Z', changedAt: '2026-11-20T08:00:06.000Z' }, 'MODIFY', '8')] }, lambdaContext('publish-webhook-events'));
      return enqueued()[0]!;
    })();
    // The read receipt leaves updatedAt as it was and stamps changedAt: the event has that time.
    expect(next.eventId).not.toBe(first!.eventId);
    expect(JSON.parse(next.payload as string)).toMatchObject({ timestamp: '2026-11-20T08:00:06.000Z', data: { readAt: '2026-11-20T08:00:05.000Z', updatedAt: '2026-11-20T08:00:04.000Z', sequence: 5 } });
  });

  it('publishes no dispatch change of a workspace without an enabled endpoint, and asks about that workspace once per container while the answer holds', async () => {
    // Disabled longer than it keeps the events it misses (MISSED_EVENTS_KEPT_MS).
    ddb.on(QueryCommand).resolves({ Items: [endpoint('ws-b', `whe_${'1'.repeat(32)}`, 'https://b.example/off', { status: 'disabled', disabledReason: 'gone', disabledAt: '2026-01-01T00:00:00.000Z' })] });
    const change = (sequence: number) => streamRecord(dispatchItem({ ...dispatch('ws-b'), status: 'processing', sequence }), 'MODIFY', String(sequence));

    // Not even parsed: a dispatch image this publisher could not read fails no record of such a workspace.
    const unreadable = streamRecord({ ...dispatchItem({ ...dispatch('ws-b'), sequence: 4 }), status: 'no-such-status' }, 'MODIFY', '4');
    expect(await publishBatch({ Records: [change(2), change(3), unreadable] }, lambdaContext('publish-webhook-events'))).toEqual({ batchItemFailures: [] });

    expect(sqs.calls()).toHaveLength(0);
    // One read of the workspace's endpoint statuses, for both records.
    expect(ddb.commandCalls(QueryCommand).map((call) => call.args[0].input.ProjectionExpression)).toEqual(['#status, disabledAt, updatedAt']);
  });

  it('sends a batch’s events ten messages to a queue request, and reads a workspace’s endpoints once for the batch', async () => {
    ddb.on(QueryCommand).resolves({ Items: [endpoint('ws-a', `whe_${'1'.repeat(32)}`, 'https://a.example/all')] });
    const records = Array.from({ length: 12 }, (_, i) => streamRecord(dispatchItem({ ...dispatch('ws-a'), status: 'processing', sequence: i + 2 }), 'MODIFY', String(i + 1)));

    expect(await publishBatch({ Records: records }, lambdaContext('publish-webhook-events'))).toEqual({ batchItemFailures: [] });

    expect(sqs.commandCalls(SendMessageBatchCommand).map((call) => call.args[0].input.Entries!.length)).toEqual([10, 2]);
    expect(enqueued().map((message) => JSON.parse(message.payload as string).data.sequence)).toEqual(records.map((_, i) => i + 2));
    // The gate's read, then the endpoints' read: one each for the twelve events.
    expect(ddb.commandCalls(QueryCommand).map((call) => call.args[0].input.ProjectionExpression)).toEqual(['#status, disabledAt, updatedAt', undefined]);
  });

  it('fails only the records whose messages the queue did not take, for the stream to hand them over again', async () => {
    ddb.on(QueryCommand).resolves({ Items: [endpoint('ws-a', `whe_${'1'.repeat(32)}`, 'https://a.example/all'), endpoint('ws-a', `whe_${'2'.repeat(32)}`, 'https://a.example/too')] });
    // Three events, two endpoints: six messages in one request, of which SQS refuses the fourth (the second event's second).
    sqs.on(SendMessageBatchCommand).resolves({ Successful: [], Failed: [{ Id: '3', Code: 'ServiceUnavailable', SenderFault: false }] });
    const records = ['1', '2', '3'].map((sequence, i) => streamRecord(outboxItem('ws-a', { ...received, id: `evt_00000000000${i}0000000000000000` }), 'INSERT', sequence));

    const logs = captureLogLines();
    const answer = await publishBatch({ Records: records }, lambdaContext('publish-webhook-events')).finally(logs.restore);

    expect(answer).toEqual({ batchItemFailures: [{ itemIdentifier: '2' }] });
    expect(sqs.commandCalls(SendMessageBatchCommand)).toHaveLength(1);
    // The batch processor says nothing of a failed record: the publisher's own line is the operator's sign.
    expect(logs.at('ERROR')).toEqual([
      expect.objectContaining({ message: 'Stream record not published; the stream hands it over again', eventId: 'c81e728d9d4c2f636f067f89cc148602', sequenceNumber: '2', error: expect.objectContaining({ message: expect.any(String) }) }),
    ]);
  });

  describe('delivery events (decision 112)', () => {
    const DISPATCH_ID = '0b9e1d8e-0000-4000-8000-000000000001';
    // A workspace without endpoints: a change's delivery events are written all the same.
    const change = (sequence: string, fields: Record<string, unknown>) =>
      streamRecord({ ...dispatchItem({ ...dispatch('ws-b'), dispatchId: DISPATCH_ID, status: 'sent', sentAt: '2026-11-20T08:00:01.000Z' }), ...fields }, 'MODIFY', sequence);
    const written = () => ddb.commandCalls(BatchWriteCommand).map((call) => call.args[0].input.RequestItems![process.env.TABLE_NAME!]!.map((request) => request.PutRequest!.Item));
    const event = (status: string, occurredAt: string, extra: Record<string, unknown> = {}) => ({
      pk: 'WS#ws-b#EVT#+6281234567890',
      sk: `${occurredAt}#${DISPATCH_ID}#${status}`,
      entity: 'deliveryEvent',
      dispatchId: DISPATCH_ID,
      workspaceId: 'ws-b',
      phone: '+6281234567890',
      status,
      occurredAt,
      ...extra,
    });

    it('writes the events each dispatch change names, at the times it keeps, in one request for the batch; a change naming none writes none', async () => {
      ddb.on(QueryCommand).resolves({ Items: [] });
      const records = [
        change('1', { deliveryEvents: ['ACCEPTED'] }),
        // Meta's pricing and a read receipt name no events.
        change('2', { pricing: { billable: true, category: 'utility', pricingModel: 'PMP' } }),
        change('3', { status: 'delivered', deliveredAt: '2026-11-20T08:00:03.000Z', deliveryEvents: ['DELIVERED'] }),
        change('4', { status: 'failed', failedAt: '2026-11-20T08:00:09.000Z', failureCode: '131026', deliveryEvents: ['REJECTED'] }),
        change('5', { status: 'delivered', sentAt: '2026-11-20T08:00:02.000Z', deliveredAt: '2026-11-20T08:00:02.000Z', deliveryEvents: ['ACCEPTED', 'DELIVERED'] }),
      ];

      expect(await publishBatch({ Records: records }, lambdaContext('publish-webhook-events'))).toEqual({ batchItemFailures: [] });

      expect(written()).toEqual([
        [
          event('ACCEPTED', '2026-11-20T08:00:01.000Z'),
          event('DELIVERED', '2026-11-20T08:00:03.000Z'),
          event('REJECTED', '2026-11-20T08:00:09.000Z', { failureCode: '131026' }),
          event('ACCEPTED', '2026-11-20T08:00:02.000Z'),
          event('DELIVERED', '2026-11-20T08:00:02.000Z'),
        ],
      ]);
      expect(sqs.calls()).toHaveLength(0);
    });

    it('puts the wamid item of the change that first recorded the wamid, in the same request as the events (decision 114); later changes put none', async () => {
      ddb.on(QueryCommand).resolves({ Items: [] });
      const records = [
        change('1', { providerMessageId: 'wamid.HBgM', wamidMade: true, deliveryEvents: ['ACCEPTED'] }),
        change('2', { status: 'delivered', providerMessageId: 'wamid.HBgM', deliveredAt: '2026-11-20T08:00:03.000Z', deliveryEvents: ['DELIVERED'] }),
      ];

      expect(await publishBatch({ Records: records }, lambdaContext('publish-webhook-events'))).toEqual({ batchItemFailures: [] });

      expect(written()).toEqual([
        [
          event('ACCEPTED', '2026-11-20T08:00:01.000Z'),
          { ...keys.providerMessage('wamid.HBgM'), entity: 'providerMessage', wamid: 'wamid.HBgM', kind: 'dispatch', workspaceId: 'ws-b', dispatchId: DISPATCH_ID },
          event('DELIVERED', '2026-11-20T08:00:03.000Z'),
        ],
      ]);
    });

    it('puts again what the table left unprocessed, and fails the records with events when the table refuses them, for the stream to hand over again', async () => {
      ddb.on(QueryCommand).resolves({ Items: [] });
      const unprocessed = { [process.env.TABLE_NAME!]: [{ PutRequest: { Item: event('ACCEPTED', '2026-11-20T08:00:01.000Z') } }] };
      ddb.on(BatchWriteCommand).resolvesOnce({ UnprocessedItems: unprocessed }).resolves({});
      expect(await publishBatch({ Records: [change('1', { deliveryEvents: ['ACCEPTED'] })] }, lambdaContext('publish-webhook-events'))).toEqual({ batchItemFailures: [] });
      expect(written()).toEqual([[event('ACCEPTED', '2026-11-20T08:00:01.000Z')], [event('ACCEPTED', '2026-11-20T08:00:01.000Z')]]);

      ddb.on(BatchWriteCommand).rejects(Object.assign(new Error('Throughput exceeds the current capacity of your table'), { name: 'ProvisionedThroughputExceededException' }));
      const records = [change('1', { deliveryEvents: ['ACCEPTED'] }), change('2', {}), change('3', { status: 'delivered', deliveredAt: '2026-11-20T08:00:03.000Z', deliveryEvents: ['DELIVERED'] })];
      expect(await publishBatch({ Records: records }, lambdaContext('publish-webhook-events'))).toEqual({ batchItemFailures: [{ itemIdentifier: '1' }, { itemIdentifier: '3' }] });
    });

    it('fails a change that names an event without its time, and no other record', async () => {
      ddb.on(QueryCommand).resolves({ Items: [] });
      const records = [change('1', { status: 'failed', failureCode: '131026', deliveryEvents: ['REJECTED'] }), change('2', { deliveryEvents: ['ACCEPTED'] })];
      expect(await publishBatch({ Records: records }, lambdaContext('publish-webhook-events'))).toEqual({ batchItemFailures: [{ itemIdentifier: '1' }] });
      expect(written()).toEqual([[event('ACCEPTED', '2026-11-20T08:00:01.000Z')]]);
    });
  });

  it('fails every record of a request that failed, and a record it could not read, and no other', async () => {
    ddb.on(QueryCommand).resolves({ Items: [endpoint('ws-a', `whe_${'1'.repeat(32)}`, 'https://a.example/all')] });
    sqs.on(SendMessageBatchCommand).rejects(Object.assign(new Error('Service unavailable'), { name: 'ServiceUnavailable' }));
    const unreadable = streamRecord({ ...outboxItem('ws-a', received), payload: 42 }, 'INSERT', '9');
    const noEvent = streamRecord({ ...keys.workspace('ws-a'), entity: 'workspace' }, 'MODIFY', '10');

    const answer = await publishBatch({ Records: [noEvent, streamRecord(outboxItem('ws-a', received), 'INSERT', '8'), unreadable] }, lambdaContext('publish-webhook-events'));

    expect(answer.batchItemFailures.map((failure) => failure.itemIdentifier).sort()).toEqual(['8', '9']);
  });
});
