import { DynamoDBDocumentClient, TransactWriteCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { ChangeMessageVisibilityCommand, SQSClient } from '@aws-sdk/client-sqs';
import { mockClient } from 'aws-sdk-client-mock';
import { deliverBatch } from '../../../lambdas/handlers/deliver';
import { handler as send } from '../../../lambdas/handlers/send-message';
import { dispatchQueueSettings } from '../../../lambdas/shared/dispatch-queue-settings';
import { resetContainerCaches } from '../../../lib/testing';
import { sqsEvent } from '../../../lib/testing/sqs-events';
import { lambdaContext, parseResult, routeEvent } from '../../support/events';
import { captureLogLines } from '../../support/log-lines';
import { SEND_KEY, stubHealthySend, validSend } from '../../support/send-fixtures';

const ddb = mockClient(DynamoDBDocumentClient);
const sqs = mockClient(SQSClient);
beforeEach(() => {
  ddb.reset();
  sqs.reset();
});


describe('deliver consumer, unreadable messages', () => {
  it.each([['not json at all'], ['{"dispatchId":"not-a-uuid","workspaceId":"ws"}'], ['[]']])(
    'drops %s instead of retrying it into the DLQ, touching nothing',
    async (body) => {
      const event = sqsEvent([{ body }]);
      expect(await deliverBatch(event, lambdaContext('deliver'))).toEqual({ batchItemFailures: [] });
      expect(ddb.calls()).toHaveLength(0);
      expect(sqs.calls()).toHaveLength(0);
    },
  );
});

describe('deliver consumer, a rate-limited message and the write of its verdict', () => {
  let claimed: Record<string, unknown> = {};
  /** A dispatch sent through the real handler to a sandbox number rate limited twice, and its queue message on receive `receiveCount`, claimed with `laterAnswers` already counted. */
  async function rateLimited(receiveCount: number, laterAnswers: number) {
    resetContainerCaches();
    stubHealthySend(ddb, sqs);
    expect(parseResult(await send(routeEvent('sendMessage', { apiKey: SEND_KEY, body: validSend({ to: '081234560429' }) }), lambdaContext('sendMessage'))).status).toBe(202);
    const item = ddb.commandCalls(TransactWriteCommand).at(-1)!.args[0].input.TransactItems![0]!.Put!.Item!;
    claimed = { ...item, status: 'processing', attemptStartedAt: new Date().toISOString(), laterAnswers };
    ddb.on(UpdateCommand).resolves({ Attributes: claimed });
    return sqsEvent([{ body: { dispatchId: item.dispatchId, workspaceId: item.workspaceId }, receiveCount }]);
  }
  const writes = () => ddb.commandCalls(UpdateCommand).map((call) => call.args[0].input.UpdateExpression!);

  it('lets the message go on its last receive while the provider’s answers leave budget, counting this one in the release', async () => {
    const event = await rateLimited(dispatchQueueSettings.maxReceiveCount, 1);
    expect(await deliverBatch(event, lambdaContext('deliver'))).toEqual({ batchItemFailures: [] });
    expect(sqs.commandCalls(ChangeMessageVisibilityCommand)).toHaveLength(0);
    const release = writes().filter((expression) => expression.includes('attemptStartedAt,'));
    expect(release).toEqual([expect.stringContaining('ADD laterAnswers :one')]);
    expect(writes().some((expression) => expression.includes('failureCode'))).toBe(false);
  });

  it('asks again, within the function’s time, a table that missed the verdict’s write: the message is done with, not retried', async () => {
    const event = await rateLimited(1, dispatchQueueSettings.maxReceiveCount - 1);
    const away = Object.assign(new Error('connect ECONNREFUSED'), { code: 'ECONNREFUSED', $metadata: {} });
    // The claim answers; the verdict's first write (the fifth "later" fails the dispatch) does not.
    let missed = 0;
    ddb.on(UpdateCommand).callsFake((input: { UpdateExpression: string }) => {
      if (!input.UpdateExpression.includes('failureCode')) return { Attributes: claimed };
      if (missed++ === 0) throw away;
      return {};
    });
    expect(await deliverBatch(event, lambdaContext('deliver'))).toEqual({ batchItemFailures: [] });
    expect(writes().filter((expression) => expression.includes('failureCode'))).toHaveLength(2);
  });

  it('stops asking, within the function’s time, a table that stays away: the record fails and its message comes back', async () => {
    const event = await rateLimited(1, dispatchQueueSettings.maxReceiveCount - 1);
    const away = Object.assign(new Error('connect ECONNREFUSED'), { code: 'ECONNREFUSED', $metadata: {} });
    ddb.on(UpdateCommand).callsFake((input: { UpdateExpression: string }) => {
      if (input.UpdateExpression.includes('failureCode')) throw away;
      return { Attributes: claimed };
    });
    // 3 s left, 2 s kept for the batch answer: the verdict is asked for about a second, well inside
    // the test's own 5 s (the 10 s a caller without a deadline gets would time it out).
    const logs = captureLogLines();
    const answer = await deliverBatch(event, lambdaContext('deliver', 3_000)).finally(logs.restore);
    expect(answer).toEqual({ batchItemFailures: [{ itemIdentifier: event.Records[0]!.messageId }] });
    expect(writes().filter((expression) => expression.includes('failureCode')).length).toBeGreaterThan(1);
    // A fault of ours, which the batch processor keeps to itself: the consumer's line names it.
    expect(logs.at('ERROR')).toEqual([
      expect.objectContaining({
        message: 'Delivery attempt failed on our side; the message comes back',
        dispatchId: claimed.dispatchId,
        receiveCount: 1,
        retryInSeconds: 2,
        error: expect.objectContaining({ message: 'connect ECONNREFUSED' }),
      }),
    ]);
  });

  it('retries after a short back-off before the last receive, counting the answer the same way', async () => {
    const event = await rateLimited(1, 0);
    expect(await deliverBatch(event, lambdaContext('deliver'))).toEqual({ batchItemFailures: [{ itemIdentifier: event.Records[0]!.messageId }] });
    expect(sqs.commandCalls(ChangeMessageVisibilityCommand).map((call) => call.args[0].input.VisibilityTimeout)).toEqual([2]);
    expect(writes().filter((expression) => expression.includes('ADD laterAnswers :one'))).toHaveLength(1);
  });
});
