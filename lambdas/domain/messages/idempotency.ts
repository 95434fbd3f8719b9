import { createHash } from 'node:crypto';
import { GetCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { keys } from '../../shared/table';
import { defaultStore } from '../../shared/default-store';
import type { Store } from '../../shared/store';
import type { DispatchStatus } from './dispatch';

/** Keys live 24 h (docs/api.md#idempotency). */
export const IDEMPOTENCY_TTL_SECONDS = 24 * 60 * 60;
/**
 * A record still `in_flight` after this long belongs to a request that stopped between its
 * transaction and marking the record complete; its dispatch exists, so replay it.
 */
export const IN_FLIGHT_WINDOW_MS = 30_000;

export interface IdempotencyRecord {
  key: string;
  fingerprint: string;
  dispatchId: string;
  state: 'in_flight' | 'completed';
  response: { dispatchId: string; status: DispatchStatus };
  createdAt: string;
}

/**
 * A fingerprint of the validated request (not of its bytes), so the same logical request sent as
 * JSON or as a form replays, and key order or whitespace do not matter.
 */
export function requestFingerprint(request: unknown): string {
  return createHash('sha256').update(canonicalJson(request)).digest('hex');
}

function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  if (value && typeof value === 'object') {
    return `{${Object.entries(value)
      .filter(([, v]) => v !== undefined)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
      .map(([k, v]) => `${JSON.stringify(k)}:${canonicalJson(v)}`)
      .join(',')}}`;
  }
  return JSON.stringify(value);
}

/** The record's Put for the send transaction: it claims the key unless a live record holds it. */
export function idempotencyPut(workspaceId: string, record: IdempotencyRecord, now: Date, tableName: string) {
  const nowSeconds = Math.floor(now.getTime() / 1000);
  return {
    TableName: tableName,
    Item: { ...keys.idempotency(workspaceId, record.key), entity: 'idempotencyRecord', workspaceId, ...record, ttl: nowSeconds + IDEMPOTENCY_TTL_SECONDS },
    // TTL deletes lazily; an expired record must not block the key.
    ConditionExpression: 'attribute_not_exists(pk) OR #ttl < :now',
    ExpressionAttributeNames: { '#ttl': 'ttl' },
    ExpressionAttributeValues: { ':now': nowSeconds },
  };
}

export async function getIdempotencyRecord(workspaceId: string, key: string, store: Store = defaultStore()): Promise<IdempotencyRecord | undefined> {
  const { Item } = await store.db.send(new GetCommand({ TableName: store.tableName, Key: keys.idempotency(workspaceId, key), ConsistentRead: true }));
  return Item as IdempotencyRecord | undefined;
}

export async function completeIdempotencyRecord(workspaceId: string, key: string, store: Store = defaultStore()): Promise<void> {
  await store.db.send(
    new UpdateCommand({
      TableName: store.tableName,
      Key: keys.idempotency(workspaceId, key),
      UpdateExpression: 'SET #state = :completed',
      ConditionExpression: 'attribute_exists(pk)',
      ExpressionAttributeNames: { '#state': 'state' },
      ExpressionAttributeValues: { ':completed': 'completed' },
    }),
  );
}
