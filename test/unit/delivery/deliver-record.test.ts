import { DynamoDBDocumentClient, GetCommand, TransactWriteCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { ChangeMessageVisibilityCommand, SendMessageCommand, SQSClient } from '@aws-sdk/client-sqs';
import { mockClient } from 'aws-sdk-client-mock';
import { deliverBatch } from '../../../lambdas/handlers/deliver';
import { VERDICT_WRITE_TIME_MS } from '../../../lambdas/domain/delivery/deliver-dispatch';
import { ProviderError, type Provider } from '../../../lambdas/domain/providers/provider';
import * as providers from '../../../lambdas/domain/providers/provider-for';
import { handler as send } from '../../../lambdas/handlers/send-message';
import { config } from '../../../lambdas/shared/config';
import { dispatchQueueSettings } from '../../../lambdas/shared/dispatch-queue-settings';
import { keys } from '../../../lambdas/shared/table';
import { resetContainerCaches } from '../../../lib/testing';
import { sqsEvent } from '../../../lib/testing/sqs-events';
import { lambdaContext, parseResult, routeEvent } from '../../support/events';
import { captureLogLines } from '../../support/log-lines';
import { SEND_KEY, stubHealthySend, validSend } from '../../support/send-fixtures';
import { thresholds } from '../../../lib/constructs/monitoring';

const ddb = mockClient(DynamoDBDocumentClient);
const sqs = mockClient(SQSClient);
beforeEach(() => {
  ddb.reset();
  sqs.reset();
});



/**
 * A claim is taken only with the provider's whole timeout and the verdict's write still ahead
 * (decision 225): these tests give the function that much more than the `leftMs` its verdict's
 * write is to have, and `callTookItsTime` runs the clock ahead by it, as a call that took it all.
 */
const CALL_TIME_MS = config.PROVIDER_TIMEOUT_MS + VERDICT_WRITE_TIME_MS;
const leftAfterTheCall = (leftMs: number) => lambdaContext('deliver', CALL_TIME_MS + leftMs);
const realNow = Date.now.bind(Date);
const callTookItsTime = () => jest.spyOn(Date, 'now').mockImplementation(() => realNow() + CALL_TIME_MS);

/** The dispatch item a send through the send route stored (the handler accepted it, 202), on healthy stubs. */
async function sentDispatchItem(body?: Parameters<typeof validSend>[0]): Promise<Record<string, unknown>> {
  resetContainerCaches();
  stubHealthySend(ddb, sqs);
  expect(parseResult(await send(routeEvent('sendMessage', { apiKey: SEND_KEY, body: validSend(body) }), lambdaContext('sendMessage'))).status).toBe(202);
  return ddb.commandCalls(TransactWriteCommand).at(-1)!.args[0].input.TransactItems![0]!.Put!.Item!;
}

describe('deliver consumer, unreadable messages', () => {
  it.each([
    ['not json at all'],
    ['{"dispatchId":"not-a-uuid","workspaceId":"ws"}'],
    ['[]'],
    // Only a provider's answer is carried: a report's move never is (decision 161).
    ['{"dispatchId":"0b4f8c2e-5a7d-4e1b-9c3a-2f6d8e1a4b7c","workspaceId":"ws","verdict":{"to":"delivered","occurredAt":"2026-11-28T03:00:00.000Z"}}'],
  ])(
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
  // WhatsApp answering "later" (130429) however often it is asked: the sandbox's 0429 number says it
  // only while the dispatch has fewer than two such answers.
  const rateLimitedProvider: Provider = {
    send: () => {
      callTookItsTime();
      return Promise.reject(new ProviderError('transient', '130429', 'Rate limit hit'));
    },
    settle: () => Promise.resolve(),
  };
  beforeEach(() => jest.spyOn(providers, 'providerFor').mockReturnValue(rateLimitedProvider));
  afterEach(() => jest.restoreAllMocks());
  /** A dispatch sent through the real handler, and its queue message on receive `receiveCount`, claimed (a claim for each answer, and this one) with `laterAnswers` already counted. */
  async function rateLimited(receiveCount: number, laterAnswers: number) {
    const item = await sentDispatchItem({ to: '081234560429' });
    claimed = { ...item, status: 'processing', attemptStartedAt: new Date().toISOString(), attempts: laterAnswers + 1, laterAnswers };
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

  /** The claim answers; every write of the verdict (the fifth "later" fails the dispatch) finds the table away. */
  function tableAwayForTheVerdict() {
    const away = Object.assign(new Error('connect ECONNREFUSED'), { code: 'ECONNREFUSED', $metadata: {} });
    ddb.on(UpdateCommand).callsFake((input: { UpdateExpression: string }) => {
      if (input.UpdateExpression.includes('failureCode')) throw away;
      return { Attributes: claimed };
    });
  }

  it('stops asking, within the function’s time, a table that stays away, and puts the verdict on the queue in a message of its own: the record is done (decision 161)', async () => {
    const event = await rateLimited(1, dispatchQueueSettings.maxReceiveCount - 1);
    tableAwayForTheVerdict();
    sqs.on(SendMessageCommand).resolves({ MessageId: 'carried-1' });
    sqs.resetHistory(); // the send's own message
    // 3 s left, 2 s kept for the batch answer: the verdict is asked for about a second, well inside
    // the test's own 5 s (the 10 s a caller without a deadline gets would time it out).
    const logs = captureLogLines();
    const answer = await deliverBatch(event, leftAfterTheCall(3_000)).finally(logs.restore);
    expect(answer).toEqual({ batchItemFailures: [] });
    expect(writes().filter((expression) => expression.includes('failureCode')).length).toBeGreaterThan(1);
    const carried = sqs.commandCalls(SendMessageCommand).map((call) => call.args[0].input);
    expect(carried.map(({ QueueUrl, MessageGroupId }) => ({ QueueUrl, MessageGroupId }))).toEqual([{ QueueUrl: process.env.QUEUE_URL, MessageGroupId: claimed.workspaceId }]);
    expect(JSON.parse(carried[0]!.MessageBody!)).toEqual({ dispatchId: claimed.dispatchId, workspaceId: claimed.workspaceId, verdict: { to: 'failed', occurredAt: expect.any(String), failureCode: 'retries_exhausted:130429', ofClaim: dispatchQueueSettings.maxReceiveCount } });
    expect(logs.at('WARN')).toEqual([
      expect.objectContaining({ message: 'The table did not take the provider’s verdict; it waits on the queue until it does', dispatchId: claimed.dispatchId, verdict: 'failed', error: expect.objectContaining({ message: 'connect ECONNREFUSED' }) }),
    ]);
    expect(logs.at('ERROR')).toEqual([]);
  });

  it('does not wait past the function’s time on a verdict write the table never answers: the verdict goes on the queue', async () => {
    const event = await rateLimited(1, dispatchQueueSettings.maxReceiveCount - 1);
    // The claim answers; the verdict's write goes out on a connection that never answers.
    ddb.on(UpdateCommand).callsFake((input: { UpdateExpression: string }) => (input.UpdateExpression.includes('failureCode') ? new Promise(() => undefined) : { Attributes: claimed }));
    sqs.resetHistory(); // the send's own message
    const logs = captureLogLines();
    const answer = await deliverBatch(event, leftAfterTheCall(3_000)).finally(logs.restore);
    expect(answer).toEqual({ batchItemFailures: [] });
    expect(sqs.commandCalls(SendMessageCommand).map((call) => JSON.parse(call.args[0].input.MessageBody!) as unknown)).toEqual([
      { dispatchId: claimed.dispatchId, workspaceId: claimed.workspaceId, verdict: { to: 'failed', occurredAt: expect.any(String), failureCode: 'retries_exhausted:130429', ofClaim: dispatchQueueSettings.maxReceiveCount } },
    ]);
    expect(logs.at('WARN')).toEqual([expect.objectContaining({ message: 'The table did not take the provider’s verdict; it waits on the queue until it does', error: expect.objectContaining({ name: 'TimeoutError' }) })]);
  });

  it('lets the record fail, for its message to come back, when the queue does not take the verdict either', async () => {
    const event = await rateLimited(1, dispatchQueueSettings.maxReceiveCount - 1);
    tableAwayForTheVerdict();
    sqs.on(SendMessageCommand).rejects(Object.assign(new Error('Service Unavailable'), { name: 'ServiceUnavailable', $metadata: { httpStatusCode: 503 } }));
    const logs = captureLogLines();
    const answer = await deliverBatch(event, leftAfterTheCall(3_000)).finally(logs.restore);
    expect(answer).toEqual({ batchItemFailures: [{ itemIdentifier: event.Records[0]!.messageId }] });
    expect(logs.at('WARN')).toEqual([expect.objectContaining({ message: 'Neither the table nor the queue took the provider’s verdict', dispatchId: claimed.dispatchId, error: expect.objectContaining({ message: 'Service Unavailable' }) })]);
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

describe('deliver consumer, a verdict carried on the queue (decision 161)', () => {
  afterEach(() => jest.restoreAllMocks());
  // The dispatch's second claim (a "later" gave the first back), in flight; a verdict carried before
  // decision 211 names no claim, and settles the one in flight taken before it.
  it.each([
    ['naming its claim', { ofClaim: 2 }],
    ['carried before it named its claim', {}],
  ])('writes it (%s) without pacing or asking the provider: one read of the dispatch, one status move held to the claim, nothing queued', async (_, named) => {
    const item = await sentDispatchItem();
    ddb.reset();
    sqs.reset();
    ddb.on(GetCommand).resolves({ Item: { ...item, status: 'processing', attemptStartedAt: new Date(Date.now() - 1_000).toISOString(), attempts: 2 } });
    ddb.on(UpdateCommand).resolves({});
    const verdict = { to: 'sent', occurredAt: new Date().toISOString(), providerMessageId: 'wamid.HBgLMTIzNDU2Nzg5MBUCABEYEjRFQkY0QjE2', ...named };

    const event = sqsEvent([{ body: { dispatchId: item.dispatchId, workspaceId: item.workspaceId, verdict } }]);
    expect(await deliverBatch(event, lambdaContext('deliver'))).toEqual({ batchItemFailures: [] });
    // No workspace read (the pace reads it), no claim: the dispatch, then its move.
    expect(ddb.commandCalls(GetCommand).map((call) => call.args[0].input.Key)).toEqual([keys.dispatch(item.dispatchId as string)]);
    const moves = ddb.commandCalls(UpdateCommand).map((call) => call.args[0].input);
    expect(moves).toHaveLength(1);
    expect(Object.values(moves[0]!.ExpressionAttributeValues!)).toEqual(expect.arrayContaining(['sent', verdict.occurredAt, verdict.providerMessageId]));
    expect([moves[0]!.ConditionExpression, moves[0]!.ExpressionAttributeValues![':claim']]).toEqual([expect.stringContaining('attempts = :claim'), 2]);
    expect(sqs.calls()).toHaveLength(0);
  });

  it('skips, with a WARN line, a verdict whose claim a later one replaced: nothing written, nothing queued', async () => {
    const item = await sentDispatchItem();
    ddb.reset();
    sqs.reset();
    // The reconciler gave the first claim back, and a second attempt sent the message.
    ddb.on(GetCommand).resolves({ Item: { ...item, status: 'sent', sentAt: new Date().toISOString(), attempts: 2 } });
    const verdict = { to: 'failed', occurredAt: new Date(Date.now() - 600_000).toISOString(), failureCode: '131053', event: 'REJECTED', ofClaim: 1 };

    const logs = captureLogLines();
    try {
      expect(await deliverBatch(sqsEvent([{ body: { dispatchId: item.dispatchId, workspaceId: item.workspaceId, verdict } }]), lambdaContext('deliver'))).toEqual({ batchItemFailures: [] });
      expect(logs.at('WARN')).toEqual([expect.objectContaining({ message: 'Skipped a carried verdict: its attempt is not the dispatch’s last', dispatchId: item.dispatchId, verdict: 'failed', ofClaim: 1, attempts: 2 })]);
    } finally {
      logs.restore();
    }
    expect(ddb.commandCalls(UpdateCommand)).toHaveLength(0);
    expect(sqs.calls()).toHaveLength(0);
  });

  it('takes a carried release outside the pace: gives the claim back, and queues the dispatch again after the back-off the provider’s answer earned, asking the provider nothing', async () => {
    const item = await sentDispatchItem();
    const attemptStartedAt = new Date(Date.now() - 30_000).toISOString();
    ddb.on(GetCommand, { Key: keys.dispatch(item.dispatchId as string) }).resolves({ Item: { ...item, status: 'processing', attemptStartedAt } });
    ddb.on(UpdateCommand).resolves({ Attributes: { ...item, status: 'processing', attemptStartedAt: new Date().toISOString() } });
    ddb.resetHistory();

    sqs.reset();
    sqs.on(SendMessageCommand).resolves({ MessageId: 'm-2' });
    const event = sqsEvent([{ body: { dispatchId: item.dispatchId, workspaceId: item.workspaceId, release: { attemptStartedAt, providerSaidLater: true, retryAfterSeconds: 16 } } }]);
    expect(await deliverBatch(event, lambdaContext('deliver'))).toEqual({ batchItemFailures: [] });
    // The release alone (the earlier attempt's claim, its "later" counted): no claim, no provider call, no pace read.
    const updates = ddb.commandCalls(UpdateCommand).map((call) => call.args[0].input);
    expect(updates.map((update) => update.ExpressionAttributeValues![':mine'])).toEqual([attemptStartedAt]);
    expect(updates[0]!.UpdateExpression).toContain('ADD laterAnswers :one');
    expect(ddb.commandCalls(GetCommand).map((call) => call.args[0].input.Key)).toEqual([keys.dispatch(item.dispatchId as string)]);
    expect(sqs.commandCalls(SendMessageCommand).map((call) => [JSON.parse(call.args[0].input.MessageBody!), call.args[0].input.DelaySeconds])).toEqual([[{ dispatchId: item.dispatchId, workspaceId: item.workspaceId }, 16]]);
  });

  // An outage's answers spend a budget of their own (decision 231): the release counts them apart, carried or not.
  it('counts a carried release of WhatsApp down in `outageAnswers` as well as `laterAnswers`', async () => {
    const item = await sentDispatchItem();
    const attemptStartedAt = new Date(Date.now() - 30_000).toISOString();
    ddb.on(GetCommand, { Key: keys.dispatch(item.dispatchId as string) }).resolves({ Item: { ...item, status: 'processing', attemptStartedAt, laterAnswers: 2, outageAnswers: 2 } });
    ddb.on(UpdateCommand).resolves({ Attributes: { ...item, status: 'processing' } });
    ddb.resetHistory();
    sqs.reset();
    sqs.on(SendMessageCommand).resolves({ MessageId: 'm-2' });
    const event = sqsEvent([{ body: { dispatchId: item.dispatchId, workspaceId: item.workspaceId, release: { attemptStartedAt, providerSaidLater: true, outage: true, retryAfterSeconds: 64 } } }]);
    expect(await deliverBatch(event, lambdaContext('deliver'))).toEqual({ batchItemFailures: [] });
    expect(ddb.commandCalls(UpdateCommand).map((call) => call.args[0].input.UpdateExpression)).toEqual([expect.stringContaining('ADD laterAnswers :one, outageAnswers :one')]);
  });

  it('carries a release the table does not take with the back-off its retry would have waited', async () => {
    const item = await sentDispatchItem({ to: '081234560429' });
    const claimed = { ...item, status: 'processing', attemptStartedAt: new Date().toISOString() };
    // The claim is taken; the release that follows the sandbox's "later" finds the table away.
    ddb.on(UpdateCommand).callsFake((input: { ExpressionAttributeValues?: Record<string, unknown> }) => {
      if (!input.ExpressionAttributeValues?.[':mine']) return Promise.resolve({ Attributes: claimed });
      callTookItsTime();
      return Promise.reject(Object.assign(new Error('table away'), { name: 'ServiceUnavailable' }));
    });
    sqs.reset();
    sqs.on(SendMessageCommand).resolves({ MessageId: 'm-2' });
    const event = sqsEvent([{ body: { dispatchId: item.dispatchId, workspaceId: item.workspaceId }, receiveCount: 2 }]);
    expect(await deliverBatch(event, leftAfterTheCall(3_000))).toEqual({ batchItemFailures: [] });
    expect(sqs.commandCalls(SendMessageCommand).map((call) => JSON.parse(call.args[0].input.MessageBody!) as unknown)).toEqual([
      { dispatchId: item.dispatchId, workspaceId: item.workspaceId, release: { attemptStartedAt: claimed.attemptStartedAt, providerSaidLater: true, retryAfterSeconds: 4 } },
    ]);
  });
});

/**
 * docs/operations.md (dispatch-queue-age): while WhatsApp is down a message is let go after its
 * fifth receive and queued again by the reconciler as a new one, so an outage does not age the
 * queue (decisions 228, 238). Nor does a refusal that lasts minutes after one: each kind of "later"
 * backs off by its own answers (decision 231), so an outage's do not stretch a `131056`'s.
 */
describe('deliver consumer, "later"s after a WhatsApp outage outlasting one queue message (decisions 228, 238)', () => {
  const answering = (code: string, backOff: 'outage' | 'long'): Provider => ({
    send: () => {
      callTookItsTime();
      return Promise.reject(new ProviderError('transient', code, 'Later', { backOff }));
    },
    settle: () => Promise.resolve(),
  });
  afterEach(() => jest.restoreAllMocks());

  it.each([
    ['WhatsApp still down (133004)', answering('133004', 'outage'), 5],
    ['too many messages to one number after it (131056)', answering('131056', 'long'), 0],
  ])('lets the message the reconciler queued again go before it is as old as the dispatch-queue-age alarm’s threshold: %s', async (_, provider, otherAnswersBefore) => {
    const item = await sentDispatchItem();
    // Its first queue message was answered 133004 five times and let go; the reconciler queued it again.
    let waited = 0;
    for (let receiveCount = 1; receiveCount <= dispatchQueueSettings.maxReceiveCount - 1; receiveCount++) {
      const outageAnswers = 5 + (otherAnswersBefore ? receiveCount - 1 : 0);
      const laterAnswers = outageAnswers + (otherAnswersBefore ? 0 : receiveCount - 1);
      const claimed = { ...item, status: 'processing', attemptStartedAt: new Date().toISOString(), attempts: laterAnswers + 1, laterAnswers, outageAnswers };
      ddb.reset();
      sqs.reset();
      ddb.on(UpdateCommand).resolves({ Attributes: claimed });
      jest.spyOn(providers, 'providerFor').mockReturnValue(provider);
      await deliverBatch(sqsEvent([{ body: { dispatchId: item.dispatchId, workspaceId: item.workspaceId }, receiveCount }]), leftAfterTheCall(10_000));
      jest.restoreAllMocks();
      waited += sqs.commandCalls(ChangeMessageVisibilityCommand).reduce((sum, call) => sum + (call.args[0].input.VisibilityTimeout ?? 0), 0);
    }
    // The queue's oldest message is this one for as long as its back-offs add up to.
    expect(waited).toBeLessThanOrEqual(thresholds.oldestMessageAgeSeconds);
  });
});
