import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient, GetCommand } from '@aws-sdk/lib-dynamodb';
import { mockClient } from 'aws-sdk-client-mock';
import { earlierAnswer, sendFingerprint } from '../../../lambdas/domain/messages/idempotency';
import { IDEMPOTENCY_TTL_SECONDS } from '../../../lambdas/shared/idempotency-key';
import { keys } from '../../../lambdas/shared/table';

/** docs/api.md#idempotency: which requests are "the same", and for how long a key answers for its first. */
const ddb = mockClient(DynamoDBDocumentClient);
const store = { db: DynamoDBDocumentClient.from(new DynamoDBClient({ region: 'ap-southeast-3' })), tableName: 'items' };
beforeEach(() => ddb.reset());

describe('a send’s fingerprint', () => {
  const send = { to: '+6281234567890', contactName: undefined, templateId: 'tpl-1', variables: { name: 'Budi' }, tagIds: [] as string[], trackingTags: [] as string[] };

  it.each(['tagIds', 'trackingTags'] as const)('is the same with %s reordered or repeated', (field) => {
    const fingerprint = sendFingerprint({ ...send, [field]: ['a', 'b'] });
    expect(sendFingerprint({ ...send, [field]: ['b', 'a'] })).toBe(fingerprint);
    expect(sendFingerprint({ ...send, [field]: ['a', 'b', 'a'] })).toBe(fingerprint);
    expect(sendFingerprint({ ...send, [field]: ['a'] })).not.toBe(fingerprint);
  });
});

describe('an earlier answer', () => {
  const now = new Date('2026-11-20T08:00:00.000Z');
  const nowSeconds = Math.floor(now.getTime() / 1000);
  const storedRecord = (ttl: number) => ({
    ...keys.idempotency('ws-1', 'order-1'),
    entity: 'idempotencyRecord',
    workspaceId: 'ws-1',
    key: 'order-1',
    fingerprint: 'fp',
    dispatchId: 'd-1',
    state: 'completed',
    response: { dispatchId: 'd-1', status: 'queued' },
    createdAt: new Date((ttl - IDEMPOTENCY_TTL_SECONDS) * 1000).toISOString(),
    ttl,
  });

  it('is replayed while the key’s 24 hours last', async () => {
    ddb.on(GetCommand).resolves({ Item: storedRecord(nowSeconds + 60) });
    await expect(earlierAnswer('ws-1', { key: 'order-1', fingerprint: 'fp' }, now, store)).resolves.toEqual({ dispatchId: 'd-1', status: 'queued' });
  });

  it('is gone once they are over, though TTL has not deleted the record yet: the same request is a new send', async () => {
    ddb.on(GetCommand).resolves({ Item: storedRecord(nowSeconds - 3600) });
    await expect(earlierAnswer('ws-1', { key: 'order-1', fingerprint: 'fp' }, now, store)).resolves.toBeUndefined();
  });
});
