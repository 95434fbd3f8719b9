import { DynamoDBDocumentClient, GetCommand, QueryCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { ChangeMessageVisibilityCommand, SQSClient } from '@aws-sdk/client-sqs';
import { mockClient } from 'aws-sdk-client-mock';
import 'aws-sdk-client-mock-jest';
import { setTimeout as sleep } from 'node:timers/promises';
import { deliverBatch } from '../../../lambdas/handlers/deliver';
import { sqsEvent } from '../../../lib/testing/sqs-events';
import { lambdaContext } from '../../support/events';
import { workspace, WORKSPACE } from '../../support/send-fixtures';

const ddb = mockClient(DynamoDBDocumentClient);
const sqs = mockClient(SQSClient);
beforeEach(() => {
  ddb.reset();
  sqs.reset();
});


describe('deliver consumer, two batches in one process at once', () => {
  // The local runtime's pollers (and Lambda's multi-concurrency instances) run several batches in
  // one process. A batch's failures must come back in its own answer: a failure reported in the
  // other batch's answer (or in none) deletes a message that still had work to do, and its
  // dispatch strands in `processing` (issue 15).
  it('answers each batch with exactly its own failed records', async () => {
    const failingId = '8f14e45f-ceea-467a-9575-000000000001';
    const settledId = '8f14e45f-ceea-467a-9575-000000000002';
    ddb.on(GetCommand).resolves({ Item: workspace });
    ddb.on(UpdateCommand).callsFake(async (input: { Key: { pk: string } }) => {
      // The table refuses one claim at once; the other finds its dispatch long delivered, a little later.
      if (input.Key.pk === `DSP#${failingId}`) throw Object.assign(new Error('table refused the claim'), { name: 'ValidationException' });
      await sleep(50);
      throw Object.assign(new Error('condition failed'), { name: 'ConditionalCheckFailedException' });
    });
    sqs.on(ChangeMessageVisibilityCommand).resolves({});
    // The workspace has no webhook endpoints: its claims carry no event.
    ddb.on(QueryCommand).resolves({ Items: [] });
    const first = sqsEvent([
      { messageId: 'a-1', body: { dispatchId: failingId, workspaceId: WORKSPACE } },
      { messageId: 'a-2', body: { dispatchId: settledId, workspaceId: WORKSPACE } },
    ]);
    // An unreadable message is dropped at once: this batch starts and ends while the first is still at work.
    const second = sqsEvent([{ messageId: 'b-1', body: 'not json' }]);

    const firstAnswer = deliverBatch(first, lambdaContext('deliver'));
    await sleep(10);
    const secondAnswer = await deliverBatch(second, lambdaContext('deliver'));

    expect(await firstAnswer).toEqual({ batchItemFailures: [{ itemIdentifier: 'a-1' }] });
    expect(secondAnswer).toEqual({ batchItemFailures: [] });
    expect(sqs).toHaveReceivedCommandWith(ChangeMessageVisibilityCommand, { ReceiptHandle: first.Records[0]!.receiptHandle, VisibilityTimeout: 2 });
  });
});
