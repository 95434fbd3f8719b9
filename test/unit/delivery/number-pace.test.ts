import { SendMessageBatchCommand, SQSClient } from '@aws-sdk/client-sqs';
import { DynamoDBDocumentClient, GetCommand, UpdateCommand, type UpdateCommandInput } from '@aws-sdk/lib-dynamodb';
import { mockClient } from 'aws-sdk-client-mock';
import { deliverBatch } from '../../../lambdas/handlers/deliver';
import { keys } from '../../../lambdas/shared/table';
import { resetContainerCaches } from '../../../lib/testing';
import { sqsEvent } from '../../../lib/testing/sqs-events';
import { lambdaContext } from '../../support/events';
import { workspace, WORKSPACE } from '../../support/send-fixtures';

const ddb = mockClient(DynamoDBDocumentClient);
const sqs = mockClient(SQSClient);
const NOW = new Date('2026-11-27T08:00:00.250Z');
const SECOND = Math.floor(NOW.getTime() / 1000);
const NUMBER = '106540352242922';

const whatsAppWorkspace = (settings: Record<string, unknown> = { whatsappPhoneNumberId: NUMBER }) => ({ ...workspace, settings: { ...workspace.settings, provider: 'whatsapp', ...settings } });
const dispatchId = (i: number) => `8f14e45f-ceea-467a-9575-${String(i).padStart(12, '0')}`;
const batch = (size: number, from = 0) => sqsEvent(Array.from({ length: size }, (_, i) => ({ messageId: `m-${from + i}`, body: { dispatchId: dispatchId(from + i), workspaceId: WORKSPACE } })));
const updates = (prefix: string) => ddb.commandCalls(UpdateCommand).map((call) => call.args[0].input).filter((input) => String(input.Key!.pk).startsWith(prefix));
/** The dispatches the consumer went on to claim: those it offered the provider this second. */
const claimed = () => updates('DSP#').map((input) => String(input.Key!.pk).slice('DSP#'.length));
/** The writes to the number's counters of a second. */
const paceWrites = () => updates('PACE#').filter((input) => input.Key!.sk === 'PACE');
/** The writes of how long the number's pace has held deliveries back (decision 241). */
const holdWrites = () => updates('PACE#').filter((input) => input.Key!.sk === 'HELD');
/** What went back on the queue, in order. */
const requeued = () =>
  sqs.commandCalls(SendMessageBatchCommand).flatMap((call) => call.args[0].input.Entries!.map((entry) => ({ dispatchId: (JSON.parse(entry.MessageBody!) as { dispatchId: string }).dispatchId, delaySeconds: entry.DelaySeconds, group: entry.MessageGroupId })));

/** Sends the counter has been offered this second by other containers, then by this one. */
let offered: number;

beforeEach(() => {
  jest.useFakeTimers({ now: NOW, doNotFake: ['nextTick', 'setImmediate', 'queueMicrotask', 'setTimeout', 'setInterval'] });
  ddb.reset();
  sqs.reset();
  resetContainerCaches();
  offered = 0;
  ddb.on(GetCommand, { Key: keys.workspace(WORKSPACE) }).resolves({ Item: whatsAppWorkspace() });
  ddb.on(UpdateCommand).callsFake((input: UpdateCommandInput) => {
    if (input.Key!.sk === 'HELD') return Promise.resolve({});
    if (String(input.Key!.pk).startsWith('PACE#')) {
      offered += input.ExpressionAttributeValues![':offered'] as number;
      return Promise.resolve({ Attributes: { offered } });
    }
    // Every claim is refused as already settled: nothing goes on to the provider.
    return Promise.reject(Object.assign(new Error('condition failed'), { name: 'ConditionalCheckFailedException' }));
  });
  sqs.on(SendMessageBatchCommand).resolves({ Successful: [], Failed: [] });
});
afterEach(() => jest.useRealTimers());

describe('the deliver consumer paces each WhatsApp number (decision 136)', () => {
  it('offers a number no more than its throughput a second, and queues the rest again for the seconds with room, claiming nothing of them', async () => {
    ddb.on(GetCommand, { Key: keys.workspace(WORKSPACE) }).resolves({ Item: whatsAppWorkspace({ whatsappPhoneNumberId: NUMBER, whatsappMessagesPerSecond: 2 }) });

    expect(await deliverBatch(batch(5), lambdaContext('deliver'))).toEqual({ batchItemFailures: [] });

    expect(claimed()).toEqual([dispatchId(0), dispatchId(1)]);
    // Past the limit by up to a second's worth: 1 s; by up to two seconds' worth: 2 s. Each a new
    // message of its workspace's group, so no receive and none of its retry budget is spent.
    expect(requeued()).toEqual([
      { dispatchId: dispatchId(2), delaySeconds: 1, group: WORKSPACE },
      { dispatchId: dispatchId(3), delaySeconds: 1, group: WORKSPACE },
      { dispatchId: dispatchId(4), delaySeconds: 2, group: WORKSPACE },
    ]);
    expect(paceWrites()).toEqual([
      expect.objectContaining({ Key: keys.numberPace(NUMBER, SECOND), UpdateExpression: 'ADD offered :offered SET entity = :entity, #ttl = :ttl', ExpressionAttributeValues: { ':offered': 5, ':entity': 'numberPace', ':ttl': SECOND + 3_600 } }),
    ]);
  });

  it('notes until when the number’s pace holds deliveries back, for the reconciler, once a container and 15 s at most (decision 241)', async () => {
    ddb.on(GetCommand, { Key: keys.workspace(WORKSPACE) }).resolves({ Item: whatsAppWorkspace({ whatsappPhoneNumberId: NUMBER, whatsappMessagesPerSecond: 2 }) });

    await deliverBatch(batch(5), lambdaContext('deliver'));
    await deliverBatch(batch(2, 5), lambdaContext('deliver'));

    // The last held back waits 2 s, then 3 s: the same 15 s grain, one write.
    const until = Math.ceil((SECOND + 2) / 15) * 15;
    expect(requeued().map(({ delaySeconds }) => delaySeconds)).toEqual([1, 1, 2, 2, 3]);
    expect(holdWrites()).toEqual([
      expect.objectContaining({
        Key: keys.numberPaceHold(NUMBER),
        UpdateExpression: 'SET heldUntil = :until, entity = :entity, #ttl = :ttl',
        ConditionExpression: 'attribute_not_exists(heldUntil) OR heldUntil < :until',
        ExpressionAttributeValues: { ':until': until, ':entity': 'numberPaceHold', ':ttl': until + 3_600 },
      }),
    ]);
  });

  it('counts what other consumers offered the number this second', async () => {
    ddb.on(GetCommand, { Key: keys.workspace(WORKSPACE) }).resolves({ Item: whatsAppWorkspace({ whatsappPhoneNumberId: NUMBER, whatsappMessagesPerSecond: 4 }) });
    offered = 3;

    await deliverBatch(batch(3), lambdaContext('deliver'));

    expect(claimed()).toEqual([dispatchId(0)]);
    expect(requeued().map(({ dispatchId, delaySeconds }) => [dispatchId, delaySeconds])).toEqual([
      [dispatchId(1), 1],
      [dispatchId(2), 1],
    ]);
  });

  it('sends unasked while the consumers at their cap could not reach the limit at this container’s rate, then tells the counter what it sent', async () => {
    // 80 a second (the stack's default), two consumers: up to 40 a second from this container need no write.
    await deliverBatch(batch(10), lambdaContext('deliver'));
    await deliverBatch(batch(30, 10), lambdaContext('deliver'));
    expect(paceWrites()).toEqual([]);
    expect(claimed()).toHaveLength(40);

    await deliverBatch(batch(1, 40), lambdaContext('deliver'));
    expect(paceWrites().map((input) => input.ExpressionAttributeValues![':offered'])).toEqual([41]);
    expect(claimed()).toHaveLength(41);
    expect(requeued()).toEqual([]);
  });

  it('asks for every batch of a second once it has asked in it: the second is contested', async () => {
    ddb.on(GetCommand, { Key: keys.workspace(WORKSPACE) }).resolves({ Item: whatsAppWorkspace({ whatsappPhoneNumberId: NUMBER, whatsappMessagesPerSecond: 19 }) });
    // Others took the whole second: this container's first batch asks (2 × 10 is over 19) and is held back.
    offered = 19;
    await deliverBatch(batch(10), lambdaContext('deliver'));
    expect(claimed()).toEqual([]);

    // A batch of one alone would stay under the bound (2 × 1); it asks all the same, and waits too.
    await deliverBatch(batch(1, 10), lambdaContext('deliver'));
    expect(paceWrites()).toHaveLength(2);
    expect(claimed()).toEqual([]);
    expect(requeued()).toHaveLength(11);
  });

  it('paces a WhatsApp workspace without a number of its own on the stack’s default number, at the stack’s pace whatever its own setting', async () => {
    ddb.on(GetCommand, { Key: keys.workspace(WORKSPACE) }).resolves({ Item: whatsAppWorkspace({ whatsappMessagesPerSecond: 1 }) });
    offered = 39;

    // 40 unasked (80 a second, two consumers), then the counter: 39 from others, 43 from this one.
    for (const from of [0, 10, 20, 30]) await deliverBatch(batch(10, from), lambdaContext('deliver'));
    await deliverBatch(batch(3, 40), lambdaContext('deliver'));

    expect(paceWrites().map((input) => [input.Key, input.ExpressionAttributeValues![':offered']])).toEqual([[keys.numberPace('stack-default', SECOND), 43]]);
    expect(claimed()).toHaveLength(41);
    expect(requeued().map(({ dispatchId }) => dispatchId)).toEqual([dispatchId(41), dispatchId(42)]);
  });

  it('does not pace the sandbox, which keeps to no throughput', async () => {
    ddb.on(GetCommand, { Key: keys.workspace(WORKSPACE) }).resolves({ Item: workspace });

    await deliverBatch(batch(10), lambdaContext('deliver'));
    await deliverBatch(batch(10, 10), lambdaContext('deliver'));
    await deliverBatch(batch(10, 20), lambdaContext('deliver'));
    await deliverBatch(batch(10, 30), lambdaContext('deliver'));
    await deliverBatch(batch(10, 40), lambdaContext('deliver'));

    expect(paceWrites()).toEqual([]);
    expect(claimed()).toHaveLength(50);
  });

  it('fails a held record the queue would not take again, so it comes back after the queue’s timeout', async () => {
    ddb.on(GetCommand, { Key: keys.workspace(WORKSPACE) }).resolves({ Item: whatsAppWorkspace({ whatsappPhoneNumberId: NUMBER, whatsappMessagesPerSecond: 1 }) });
    sqs.on(SendMessageBatchCommand).resolves({ Successful: [{ Id: '0', MessageId: 'x', MD5OfMessageBody: 'x' }], Failed: [{ Id: '1', Code: 'InternalError', SenderFault: false }] });

    expect(await deliverBatch(batch(3), lambdaContext('deliver'))).toEqual({ batchItemFailures: [{ itemIdentifier: 'm-2' }] });
    expect(claimed()).toEqual([dispatchId(0)]);
  });

  it('delivers unpaced when the table does not answer for the pace: the provider’s own rate limit still holds', async () => {
    ddb.on(GetCommand, { Key: keys.workspace(WORKSPACE) }).resolves({ Item: whatsAppWorkspace({ whatsappPhoneNumberId: NUMBER, whatsappMessagesPerSecond: 1 }) });
    ddb.on(UpdateCommand, { Key: keys.numberPace(NUMBER, SECOND) }).rejects(Object.assign(new Error('unavailable'), { name: 'ServiceUnavailable' }));

    expect(await deliverBatch(batch(3), lambdaContext('deliver'))).toEqual({ batchItemFailures: [] });
    expect(claimed()).toHaveLength(3);
    expect(requeued()).toEqual([]);
  });
});
