import { createHash } from 'node:crypto';
import { SQSClient } from '@aws-sdk/client-sqs';
import { TransactionCanceledException } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient, GetCommand, TransactWriteCommand } from '@aws-sdk/lib-dynamodb';
import { mockClient } from 'aws-sdk-client-mock';
import { handler } from '../../../lambdas/handlers/send-message';
import { keys } from '../../../lambdas/shared/table';
import { resetContainerCaches, workspaceItem } from '../../../lib/testing';
import { encodeBody, type Encoding } from '../../support/encodings';
import { lambdaContext, parseResult, routeEvent } from '../../support/events';
import { SEND_KEY, stubHealthySend, TEMPLATE_ID, validSend, WORKSPACE } from '../../support/send-fixtures';

/**
 * docs/api.md#idempotency: the same key with "the same validated body, whichever encoding carried
 * it" replays the original 202; and a key is the send's last check (#send-a-message, check 8), so a
 * reused key on a request that fails an earlier check gets that check's answer. The first request's
 * idempotency record is kept as the table would keep it; the retry reads it back.
 */
const ddb = mockClient(DynamoDBDocumentClient);
const sqs = mockClient(SQSClient);
const TABLE = process.env.TABLE_NAME!;
const KEY = 'order-1042';

beforeEach(() => {
  ddb.reset();
  sqs.reset();
  resetContainerCaches();
  stubHealthySend(ddb, sqs);
});

async function send(body: Record<string, unknown>, encoding: Encoding = 'json', key: string | undefined = KEY) {
  const encoded = encodeBody(body, encoding);
  const event = routeEvent('sendMessage', { apiKey: SEND_KEY, body: encoded.body, headers: { ...encoded.headers, ...(key ? { 'Idempotency-Key': key } : {}) } });
  return parseResult(await handler(event, lambdaContext('sendMessage')));
}

/** Sends `first`, keeps its idempotency record (completed) where the retry's read finds it, then sends `retry`. */
async function firstThenRetry(first: Record<string, unknown>, firstEncoding: Encoding, retry: Record<string, unknown>, retryEncoding: Encoding) {
  const original = await send(first, firstEncoding);
  expect(original.status).toBe(202);
  const claim = ddb.commandCalls(TransactWriteCommand)[0]!.args[0].input.TransactItems!.find((item) => item.Put?.Item?.entity === 'idempotencyRecord')!;
  ddb.on(GetCommand, { TableName: TABLE, Key: keys.idempotency(WORKSPACE, KEY), ConsistentRead: true }).resolves({ Item: { ...claim.Put!.Item, state: 'completed' } });
  // The key is taken: a send with it is refused on its claim (the transaction's fourth write).
  ddb.on(TransactWriteCommand).rejects(
    new TransactionCanceledException({ message: 'cancelled', $metadata: {}, CancellationReasons: [{ Code: 'None' }, { Code: 'None' }, { Code: 'None' }, { Code: 'ConditionalCheckFailed' }] }),
  );
  const retried = await send(retry, retryEncoding);
  return { original, retried, replay: [202, undefined, 'true', original.body.dispatchId] };
}
const outcome = ({ status, body, headers }: Awaited<ReturnType<typeof send>>) => [status, body.error, headers['idempotent-replayed'], body.dispatchId];

describe('POST /v1/messages, an Idempotency-Key retry of the same request', () => {
  it('replays a JSON send retried as a form with the same fields', async () => {
    const body = validSend({ trackingTags: ['promo'] });
    const { retried, replay } = await firstThenRetry(body, 'json', body, 'form');
    expect(outcome(retried)).toEqual(replay);
  });

  it('replays a JSON send with empty trackingTags and tagIds retried as a form, which cannot write an empty array', async () => {
    const { retried, replay } = await firstThenRetry(validSend({ trackingTags: [], tagIds: [] }), 'json', validSend(), 'form');
    expect(outcome(retried)).toEqual(replay);
  });

  it('replays a retry whose tracking tags differ by a duplicate, which the send drops, or by their order', async () => {
    const { retried, replay } = await firstThenRetry(validSend({ trackingTags: ['promo', 'vip', 'promo'] }), 'json', validSend({ trackingTags: ['vip', 'promo'] }), 'multipart');
    expect(outcome(retried)).toEqual(replay);
  });

  it('replays a retry that writes the recipient in another format of the same number', async () => {
    const { retried, replay } = await firstThenRetry(validSend({ to: '0812-3456-7890' }), 'json', validSend({ to: '+62 812-3456-7890' }), 'json');
    expect(outcome(retried)).toEqual(replay);
  });

  it('replays a retry whose templateId is written in upper case', async () => {
    const upper = validSend({ content: { type: 'template', templateId: TEMPLATE_ID.toUpperCase(), variables: { name: 'Budi', order: 'A-1' } } });
    const { retried, replay } = await firstThenRetry(validSend(), 'form', upper, 'json');
    expect(outcome(retried)).toEqual(replay);
  });

  it('still answers 409 idempotency_conflict to a valid retry with other variables, writing nothing', async () => {
    const other = validSend({ content: { type: 'template', templateId: TEMPLATE_ID, variables: { name: 'Budi', order: 'A-2' } } });
    const { retried } = await firstThenRetry(validSend(), 'json', other, 'json');
    expect([retried.status, retried.body.error]).toEqual([409, 'idempotency_conflict']);
  });
});

describe('POST /v1/messages, a reused Idempotency-Key on a request that fails an earlier check', () => {
  it.each([
    ['an invalid phone number (check 3)', validSend({ to: '12' }), 'validation_failed'],
    ['an unknown template (check 4)', validSend({ content: { type: 'template', templateId: '00000000-0000-4000-8000-000000000000', variables: {} } }), 'template_not_found'],
    ['a missing required variable (check 4)', validSend({ content: { type: 'template', templateId: TEMPLATE_ID, variables: { name: 'Budi' } } }), 'missing_variables'],
  ])('answers %s with its 422, as without the key, not 409 idempotency_conflict', async (_case, body, code) => {
    await firstThenRetry(validSend(), 'json', validSend(), 'json');
    ddb.resetHistory();
    const withoutKey = await send(body, 'json', undefined);
    expect([withoutKey.status, withoutKey.body.error]).toEqual([422, code]);
    const withKey = await send(body);
    expect([withKey.status, withKey.body.error]).toEqual([422, code]);
    expect(ddb.commandCalls(TransactWriteCommand)).toHaveLength(0);
  });
});

it('answers 409 duplicate_send, check 7, to another request with a used key and a send already made today', async () => {
  ddb.on(GetCommand, { TableName: TABLE, Key: keys.workspace(WORKSPACE) }).resolves({ Item: workspaceItem({ id: WORKSPACE, settings: { dedupe: 'wib-day' } }) });
  await firstThenRetry(validSend(), 'json', validSend(), 'json');
  ddb.on(TransactWriteCommand).rejects(
    new TransactionCanceledException({
      message: 'cancelled',
      $metadata: {},
      CancellationReasons: [{ Code: 'None' }, { Code: 'None' }, { Code: 'None' }, { Code: 'ConditionalCheckFailed' }, { Code: 'ConditionalCheckFailed' }],
    }),
  );
  const other = validSend({ contactName: 'Budi' });
  const { status, body } = await send(other);
  expect([status, body.error]).toEqual([409, 'duplicate_send']);
});

// Decision 174's transition: a key the release before recorded holds the fingerprint it gave, the
// SHA-256 of the validated body's canonical JSON. A retry of that request replays, every time.
it('replays a retry of a request whose key the release before recorded, with that release’s fingerprint', async () => {
  const body = validSend({ trackingTags: ['promo'] });
  const canonical = (value: unknown): string =>
    Array.isArray(value)
      ? `[${value.map(canonical).join(',')}]`
      : value && typeof value === 'object'
        ? `{${Object.entries(value).filter(([, v]) => v !== undefined).sort(([a], [b]) => (a < b ? -1 : 1)).map(([k, v]) => `${JSON.stringify(k)}:${canonical(v)}`).join(',')}}`
        : JSON.stringify(value);
  const formerFingerprint = createHash('sha256').update(canonical(body)).digest('hex');
  const dispatchId = '11111111-1111-4111-8111-111111111111';
  ddb.on(GetCommand, { TableName: TABLE, Key: keys.idempotency(WORKSPACE, KEY), ConsistentRead: true }).resolves({
    Item: { ...keys.idempotency(WORKSPACE, KEY), entity: 'idempotencyRecord', workspaceId: WORKSPACE, key: KEY, fingerprint: formerFingerprint, dispatchId, state: 'completed', response: { dispatchId, status: 'queued' }, createdAt: new Date(Date.now() - 300_000).toISOString() },
  });
  for (const encoding of ['json', 'json', 'form'] as const) {
    const retried = await send(body, encoding);
    expect(outcome(retried)).toEqual([202, undefined, 'true', dispatchId]);
  }
  expect(ddb.commandCalls(TransactWriteCommand)).toHaveLength(0);
});
