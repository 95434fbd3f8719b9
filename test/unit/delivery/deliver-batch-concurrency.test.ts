import { UpdateCommand, DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { ChangeMessageVisibilityCommand, SQSClient } from '@aws-sdk/client-sqs';
import { mockClient } from 'aws-sdk-client-mock';
import 'aws-sdk-client-mock-jest';
import { setTimeout as sleep } from 'node:timers/promises';
import type { SQSEvent, SQSRecord } from 'aws-lambda';
import { deliverBatch } from '../../../lambdas/handlers/deliver';
import { lambdaContext } from '../../support/events';

const ddb = mockClient(DynamoDBDocumentClient);
const sqs = mockClient(SQSClient);
beforeEach(() => {
  ddb.reset();
  sqs.reset();
});

const record = (messageId: string, body: string): SQSRecord => ({
  messageId,
  receiptHandle: `receipt-${messageId}`,
  body,
  attributes: { ApproximateReceiveCount: '1', SentTimestamp: '0', SenderId: 's', ApproximateFirstReceiveTimestamp: '0' },
  messageAttributes: {},
  md5OfBody: '',
  eventSource: 'aws:sqs',
  eventSourceARN: 'arn:aws:sqs:ap-southeast-3:000000000000:dispatch',
  awsRegion: 'ap-southeast-3',
});

describe('deliver consumer, two batches in one process at once', () => {
  // The local runtime's pollers (and Lambda's multi-concurrency instances) run several batches in
  // one process. A batch's failures must come back in its own answer: a failure reported in the
  // other batch's answer (or in none) deletes a message that still had work to do, and its
  // dispatch strands in `processing` (issue 15).
  it('answers each batch with exactly its own failed records', async () => {
    const failingId = '8f14e45f-ceea-467a-9575-000000000001';
    const settledId = '8f14e45f-ceea-467a-9575-000000000002';
    ddb.on(UpdateCommand).callsFake(async (input: { Key: { pk: string } }) => {
      // The table refuses one claim at once; the other finds its dispatch long delivered, a little later.
      if (input.Key.pk === `DSP#${failingId}`) throw Object.assign(new Error('table refused the claim'), { name: 'ValidationException' });
      await sleep(50);
      throw Object.assign(new Error('condition failed'), { name: 'ConditionalCheckFailedException' });
    });
    sqs.on(ChangeMessageVisibilityCommand).resolves({});
    const first: SQSEvent = {
      Records: [record('a-1', JSON.stringify({ dispatchId: failingId, workspaceId: 'ws-a' })), record('a-2', JSON.stringify({ dispatchId: settledId, workspaceId: 'ws-a' }))],
    };
    // An unreadable message is dropped at once: this batch starts and ends while the first is still at work.
    const second: SQSEvent = { Records: [record('b-1', 'not json')] };

    const firstAnswer = deliverBatch(first, lambdaContext('deliver'));
    await sleep(10);
    const secondAnswer = await deliverBatch(second, lambdaContext('deliver'));

    expect(await firstAnswer).toEqual({ batchItemFailures: [{ itemIdentifier: 'a-1' }] });
    expect(secondAnswer).toEqual({ batchItemFailures: [] });
    expect(sqs).toHaveReceivedCommandWith(ChangeMessageVisibilityCommand, { ReceiptHandle: 'receipt-a-1', VisibilityTimeout: 2 });
  });
});
