import { TransactionCanceledException } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient, GetCommand, TransactWriteCommand } from '@aws-sdk/lib-dynamodb';
import { mockClient } from 'aws-sdk-client-mock';
import { handler as createEndpoint } from '../../../lambdas/handlers/create-webhook-endpoint';
import { handler as deleteEndpoint } from '../../../lambdas/handlers/delete-webhook-endpoint';
import { CONFLICT_RETRIES, CONFLICT_WAIT_MS, transactWriteThroughConflicts } from '../../../lambdas/shared/writes';
import type { Store } from '../../../lambdas/shared/store';
import { apiKeyItem, invokeRoute, parseResult, resetContainerCaches } from '../../../lib/testing';

const ddb = mockClient(DynamoDBDocumentClient);
const KEY = 'msk_test_webhooks_0001';
const WS = 'ws-test';
const ID = 'whe_0123456789abcdef0123456789abcdef';

beforeEach(() => {
  ddb.reset();
  resetContainerCaches();
  const keyItem = apiKeyItem(KEY, { scopes: ['webhooks:manage'], workspaceId: WS });
  ddb.on(GetCommand).callsFake(({ Key }: { Key: { pk: string } }) => ({ Item: Key.pk === keyItem.pk ? keyItem : undefined }));
});

/**
 * Two endpoint writes of one workspace at once (endpoints created in parallel at setup, or one
 * created while another is deleted) both write the workspace's endpoint count, and DynamoDB cancels
 * one with `TransactionConflict`: nothing was written. That answered 500 `internal_error`.
 */
const conflict = () =>
  new TransactionCanceledException({ message: 'Transaction cancelled, please refer cancellation reasons for specific reasons [None, TransactionConflict]', $metadata: {}, CancellationReasons: [{ Code: 'None' }, { Code: 'TransactionConflict' }] });

describe('webhook endpoint writes meeting a concurrent write of the same workspace', () => {
  it('POST /v1/webhook-endpoints is tried again and answers 201', async () => {
    ddb.on(TransactWriteCommand).rejectsOnce(conflict()).resolves({});
    const { status } = parseResult(await invokeRoute('createWebhookEndpoint', createEndpoint, { apiKey: KEY, body: { url: 'https://93.184.215.14/hooks' } }));
    expect([status, ddb.commandCalls(TransactWriteCommand).length]).toEqual([201, 2]);
  });

  it('DELETE /v1/webhook-endpoints/{id} is tried again and answers 204', async () => {
    ddb.on(TransactWriteCommand).rejectsOnce(conflict()).resolves({});
    const { status } = parseResult(await invokeRoute('deleteWebhookEndpoint', deleteEndpoint, { apiKey: KEY, pathParameters: { id: ID } }), 'text');
    expect([status, ddb.commandCalls(TransactWriteCommand).length]).toEqual([204, 2]);
  });
});

describe('transactWriteThroughConflicts', () => {
  afterEach(() => {
    jest.useRealTimers();
    jest.restoreAllMocks();
  });

  // The pauses are random (full jitter): each bound is held with the pauses pinned at one end.
  it.each([
    ['its retries, with the shortest pauses', 0, CONFLICT_RETRIES + 1],
    ['its time, with the longest pauses (8 s of them within 13 retries)', 0.999_999, 14],
  ])('gives up with a 503 to retry once the conflicts outlast %s, having written nothing', async (_case, random, tries) => {
    jest.useFakeTimers();
    jest.spyOn(Math, 'random').mockReturnValue(random);
    let calls = 0;
    const store = { tableName: 't', db: { send: () => ((calls += 1), Promise.reject(conflict())) } } as unknown as Store;
    const started = Date.now();
    const write = transactWriteThroughConflicts(store, { a: { Put: { Item: { pk: 'A', sk: 'A' } } }, b: { Put: { Item: { pk: 'B', sk: 'B' } } } });
    const outcome = write.then(() => undefined, (error: unknown) => error);
    await jest.runAllTimersAsync();
    expect(await outcome).toMatchObject({ code: 'service_unavailable', status: 503, headers: { 'Retry-After': '1' } });
    expect(calls).toBe(tries);
    // A 10 s function still answers: the last pause starts before CONFLICT_WAIT_MS and lasts at most a second.
    expect(Date.now() - started).toBeLessThan(CONFLICT_WAIT_MS + 1_000);
  });

  it('answers any other refusal as transactWrite does, at once', async () => {
    const refused = new TransactionCanceledException({ message: 'cancelled', $metadata: {}, CancellationReasons: [{ Code: 'ConditionalCheckFailed' }, { Code: 'TransactionConflict' }] });
    const store = { tableName: 't', db: { send: () => Promise.reject(refused) } } as unknown as Store;
    await expect(transactWriteThroughConflicts(store, { a: { Put: { Item: { pk: 'A', sk: 'A' } } }, b: { Put: { Item: { pk: 'B', sk: 'B' } } } })).resolves.toEqual({
      committed: false,
      refused: { a: 'ConditionalCheckFailed', b: 'TransactionConflict' },
    });
  });
});
