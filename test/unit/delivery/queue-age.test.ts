import { CloudWatchClient, GetMetricStatisticsCommand } from '@aws-sdk/client-cloudwatch';
import { SendMessageCommand, SQSClient } from '@aws-sdk/client-sqs';
import { BatchGetCommand, DynamoDBDocumentClient, GetCommand, QueryCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { mockClient } from 'aws-sdk-client-mock';
import { dispatchQueueAge, oldestMessageAge } from '../../../lambdas/domain/delivery/queue-age';
import { handler } from '../../../lambdas/handlers/reconcile';
import { draftDispatch } from '../../../lambdas/domain/messages/dispatch';
import { dispatchItem } from '../../../lambdas/domain/messages/dispatch-repository';
import { resetContainerCaches } from '../../../lib/testing';
import { sqs as sqsClient } from '../../../lambdas/shared/clients';
import { lambdaContext } from '../../support/events';
import { template, WORKSPACE } from '../../support/send-fixtures';

const cloudwatch = mockClient(CloudWatchClient);
const ddb = mockClient(DynamoDBDocumentClient);
const sqs = mockClient(SQSClient);
const NOW = new Date('2026-11-27T08:00:30.000Z');

beforeEach(() => {
  jest.useFakeTimers({ now: NOW, doNotFake: ['nextTick', 'setImmediate', 'queueMicrotask', 'setTimeout', 'setInterval'] });
  cloudwatch.reset();
  ddb.reset();
  sqs.reset();
  resetContainerCaches();
});
afterEach(() => {
  jest.useRealTimers();
  jest.restoreAllMocks();
});

describe('the dispatch queue’s age, from SQS’s metric in CloudWatch (decision 137)', () => {
  it('is the latest minute’s maximum of ApproximateAgeOfOldestMessage, aged by the time since that minute began', async () => {
    cloudwatch.on(GetMetricStatisticsCommand).resolves({
      Datapoints: [
        { Timestamp: new Date('2026-11-27T07:57:00.000Z'), Maximum: 300 },
        { Timestamp: new Date('2026-11-27T07:58:00.000Z'), Maximum: 360 },
        { Timestamp: new Date('2026-11-27T07:56:00.000Z'), Maximum: 240 },
      ],
    });

    // 360 s at 07:58:00, read at 08:00:30: at least 360 + 150 s now, had that message stayed.
    expect(await oldestMessageAge('messaging-dispatch', NOW, new CloudWatchClient({}))).toBe(510_000);
    expect(cloudwatch.commandCalls(GetMetricStatisticsCommand)[0]!.args[0].input).toEqual({
      Namespace: 'AWS/SQS',
      MetricName: 'ApproximateAgeOfOldestMessage',
      Dimensions: [{ Name: 'QueueName', Value: 'messaging-dispatch' }],
      StartTime: new Date(NOW.getTime() - 6 * 60_000),
      EndTime: NOW,
      Period: 60,
      Statistics: ['Maximum'],
    });
  });

  it('is unknown for a queue CloudWatch has no recent figure of (an idle queue publishes none)', async () => {
    cloudwatch.on(GetMetricStatisticsCommand).resolves({ Datapoints: [] });
    expect(await oldestMessageAge('messaging-dispatch', NOW, new CloudWatchClient({}))).toBeUndefined();
  });

  it('is asked of CloudWatch for SQS’s own queues only: an emulator’s (the local runtime’s) has no metrics', async () => {
    cloudwatch.on(GetMetricStatisticsCommand).resolves({ Datapoints: [{ Timestamp: new Date('2026-11-27T08:00:00.000Z'), Maximum: 60 }] });
    const sqsClient = new SQSClient({});

    expect(await dispatchQueueAge({ sqs: sqsClient, queueUrl: 'http://127.0.0.1:4566/000000000000/local-dispatch' }, NOW)).toBeUndefined();
    expect(cloudwatch.calls()).toHaveLength(0);
    expect(await dispatchQueueAge({ sqs: sqsClient, queueUrl: 'https://sqs.ap-southeast-3.amazonaws.com/123456789012/MessagingApi-prod-dispatch' }, NOW)).toBe(90_000);
    expect(cloudwatch.commandCalls(GetMetricStatisticsCommand)[0]!.args[0].input.Dimensions).toEqual([{ Name: 'QueueName', Value: 'MessagingApi-prod-dispatch' }]);
  });

  it('is not asked of CloudWatch for a queue reached at an endpoint of its own (SQS_ENDPOINT), whatever its URL names', async () => {
    // A developer's unit test with the README's dead-port endpoints: the reconciler must not reach AWS.
    const elsewhere = new SQSClient({ endpoint: 'http://127.0.0.1:9' });
    expect(await dispatchQueueAge({ sqs: elsewhere, queueUrl: 'https://sqs.ap-southeast-3.amazonaws.com/123456789012/MessagingApi-prod-dispatch' }, NOW)).toBeUndefined();
    expect(cloudwatch.calls()).toHaveLength(0);
  });
});

describe('the reconciler, as deployed', () => {
  // One queued dispatch, idle five minutes, in the pending entries the reconciler reads.
  const dispatch = draftDispatch(
    { workspaceId: WORKSPACE, apiClient: { id: 'k', name: 'k' }, to: '+6281234567890', variables: { name: 'Budi', order: 'A-1' }, tagIds: [], trackingTags: [], now: new Date(NOW.getTime() - 5 * 60_000) },
    template,
    template.versions[0]!,
    { rupiahPerCredit: 150 },
  );
  const { dispatchId } = dispatch;
  const stored = dispatchItem(dispatch);
  beforeEach(() => {
    // As deployed, the functions' SQS client is at SQS's own endpoint (a full test run points it at the emulator).
    jest.replaceProperty(sqsClient.config, 'isCustomEndpoint', false);
    ddb.on(GetCommand).resolves({}); // no position kept from a run before: each shard is read from its oldest entry
    ddb.on(QueryCommand).resolves({ Items: [stored] });
    ddb.on(BatchGetCommand).callsFake((input: { RequestItems: Record<string, unknown> }) => Promise.resolve({ Responses: { [Object.keys(input.RequestItems)[0]!]: [stored] } }));
    ddb.on(UpdateCommand).resolves({ Attributes: { ...stored, updatedAt: NOW.toISOString() } });
    sqs.on(SendMessageCommand).resolves({ MessageId: 'm-1' });
  });

  it('asks CloudWatch how long its own queue held its oldest message, and leaves a dispatch younger than that', async () => {
    cloudwatch.on(GetMetricStatisticsCommand).resolves({ Datapoints: [{ Timestamp: new Date('2026-11-27T07:59:00.000Z'), Maximum: 900 }] });

    const summary = await handler({}, lambdaContext('reconcile'));

    expect(cloudwatch.commandCalls(GetMetricStatisticsCommand)[0]!.args[0].input.Dimensions).toEqual([{ Name: 'QueueName', Value: 'test-dispatch' }]);
    expect(summary).toMatchObject({ requeued: 0 });
    expect(summary.waiting).toBeGreaterThanOrEqual(1);
    expect(sqs.commandCalls(SendMessageCommand)).toEqual([]);
  });

  it('queues the dispatch again when CloudWatch does not answer: as it did before it asked', async () => {
    cloudwatch.on(GetMetricStatisticsCommand).rejects(Object.assign(new Error('Rate exceeded'), { name: 'Throttling' }));

    const summary = await handler({}, lambdaContext('reconcile'));

    expect(summary.requeued).toBeGreaterThanOrEqual(1);
    expect(sqs.commandCalls(SendMessageCommand).map((call) => JSON.parse(call.args[0].input.MessageBody!))).toContainEqual({ dispatchId, workspaceId: WORKSPACE });
  });
});
