import { BatchGetCommand, DynamoDBDocumentClient, TransactWriteCommand } from '@aws-sdk/lib-dynamodb';
import { DynamoDBClient, TransactionCanceledException } from '@aws-sdk/client-dynamodb';
import { mockClient } from 'aws-sdk-client-mock';
import { toDispatch } from '../../../lambdas/domain/messages/dispatch-repository';
import { getIdempotencyRecord } from '../../../lambdas/domain/messages/idempotency';
import { BATCH_GET_ATTEMPTS, batchGet } from '../../../lambdas/shared/batch-get';
import { isDependencyUnavailable } from '../../../lambdas/shared/dependency-errors';
import { MalformedItemError, parseItem } from '../../../lambdas/shared/stored-item';
import * as z from '../../../lambdas/shared/zod';
import { keys } from '../../../lambdas/shared/table';
import { isConditionFailed, transactWrite } from '../../../lambdas/shared/writes';

const ddb = mockClient(DynamoDBDocumentClient);
const store = { db: DynamoDBDocumentClient.from(new DynamoDBClient({ region: 'ap-southeast-3' })), tableName: 'items' };
beforeEach(() => ddb.reset());

describe('stored items are parsed, not cast', () => {
  it('refuses a dispatch item missing fields, naming the entity, its key and the fields', () => {
    const item = { ...keys.dispatch('d-1'), dispatchId: 'd-1', workspaceId: 'ws', channel: 'whatsapp', status: 'queued' };
    expect(() => toDispatch(item)).toThrow(MalformedItemError);
    expect(() => toDispatch(item)).toThrow(/^Stored dispatch DSP#d-1\/DSP is malformed: to: .*templateId: /);
  });

  it("names the key without the customer's number it holds (numbers stay out of log lines)", () => {
    const item = { ...keys.marketingOptOut('ws', '+6281299887766'), optedOutAt: 42 };
    expect(() => parseItem(z.object({ optedOutAt: z.string() }), item, 'opt-out')).toThrow(/^Stored opt-out WS#ws#OPTOUTS\/OPTOUT#\+…7766 is malformed: optedOutAt: /);
    const event = { ...keys.deliveryEvent('ws', '+6281299887766', '2026-11-28T00:00:00.000Z', 'd-1', 'DELIVERED') };
    expect(() => parseItem(z.object({ status: z.string() }), event, 'delivery event')).toThrow('Stored delivery event WS#ws#EVT#+…7766/2026-11-28T00:00:00.000Z#d-1#DELIVERED is malformed');
  });

  it('refuses a dispatch with a status the domain does not know', () => {
    expect(() => toDispatch({ status: 'lost' })).toThrow(/status: Invalid option/);
  });

  it('refuses an idempotency record whose state is not one it writes', async () => {
    ddb.onAnyCommand().resolves({ Item: { key: 'k', fingerprint: 'f', dispatchId: 'd', state: 'half-done', response: { dispatchId: 'd', status: 'queued' }, createdAt: 'now' } });
    await expect(getIdempotencyRecord('ws', 'k', store)).rejects.toThrow(/^Stored idempotency record is malformed: state: /);
  });
});

describe('transactions name their writes', () => {
  it('maps a cancellation to the names of the refused writes, whatever their positions', async () => {
    ddb.on(TransactWriteCommand).rejects(
      new TransactionCanceledException({ message: 'cancelled', $metadata: {}, CancellationReasons: [{ Code: 'None' }, { Code: 'None' }, { Code: 'None' }, { Code: 'ConditionalCheckFailed' }] }),
    );
    const put = (pk: string) => ({ Put: { Item: { pk, sk: 'X' } } });
    const result = await transactWrite(store, { first: put('a'), many: [put('b'), put('c')], skipped: undefined, last: put('d') });
    expect(result).toEqual({ committed: false, refused: { last: 'ConditionalCheckFailed' } });
    expect(ddb.commandCalls(TransactWriteCommand)[0]!.args[0].input.TransactItems).toEqual(['a', 'b', 'c', 'd'].map((pk) => ({ Put: { TableName: 'items', Item: { pk, sk: 'X' } } })));
  });

  it('recognises a failed condition by its name only', () => {
    expect(isConditionFailed(Object.assign(new Error('x'), { name: 'ConditionalCheckFailedException' }))).toBe(true);
    expect(isConditionFailed(Object.assign(new Error('x'), { name: 'TransactionCanceledException' }))).toBe(false);
    expect(isConditionFailed('ConditionalCheckFailedException')).toBe(false);
  });
});

describe('batchGet', () => {
  it('gives up with a clear error when DynamoDB keeps leaving keys unprocessed', async () => {
    jest.useFakeTimers({ doNotFake: ['nextTick', 'setImmediate', 'queueMicrotask'] });
    try {
      ddb.on(BatchGetCommand).resolves({ Responses: { items: [] }, UnprocessedKeys: { items: { Keys: [keys.dispatch('d-1')] } } });
      const read = batchGet(store, [keys.dispatch('d-1')]);
      const outcome = read.catch((error: unknown) => error);
      await jest.runAllTimersAsync();
      const error = await outcome;
      expect(error).toMatchObject({ message: `BatchGetItem left 1 keys unprocessed after ${BATCH_GET_ATTEMPTS} attempts` });
      // The table throttling, not a bug: a route answers 503 with Retry-After, not 500.
      expect(isDependencyUnavailable(error)).toBe(true);
      expect(ddb.commandCalls(BatchGetCommand)).toHaveLength(BATCH_GET_ATTEMPTS);
    } finally {
      jest.useRealTimers();
    }
  });
});
