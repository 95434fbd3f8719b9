import { randomUUID } from 'node:crypto';
import { GetCommand, PutCommand, QueryCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { queryAll } from '../../shared/query-all';
import { indexKeys, keys, prefixes } from '../../shared/table';
import { defaultStore } from '../../shared/default-store';
import type { Store } from '../../shared/store';
import type { Scope } from '../../shared/scopes';
import { apiKeyHint, hashApiKey } from './api-key-secret';

export interface ApiKeyRecord {
  keyId: string;
  workspaceId: string;
  name: string;
  scopes: Scope[];
  status: 'active' | 'revoked';
  hint: string;
  createdAt: string;
  revokedAt?: string;
  /** Optional hard expiry, checked on every request (not a TTL: an expired key stays listable). */
  expiresAt?: string;
}

export interface NewApiKey {
  workspaceId: string;
  name: string;
  scopes: Scope[];
  expiresAt?: string;
}

export async function getApiKeyByHash(hash: string, store: Store = defaultStore()): Promise<ApiKeyRecord | undefined> {
  const { Item } = await store.db.send(new GetCommand({ TableName: store.tableName, Key: keys.apiKey(hash) }));
  return Item ? toRecord(Item) : undefined;
}

/**
 * Stores a key by the hash of `plaintext`. Writing the same plaintext again keeps the original
 * record (seeding is idempotent across restarts), so the returned record is the stored one.
 */
export async function saveApiKey(plaintext: string, input: NewApiKey, now: Date, store: Store = defaultStore()): Promise<ApiKeyRecord> {
  const hash = hashApiKey(plaintext);
  const record: ApiKeyRecord = {
    keyId: randomUUID(),
    workspaceId: input.workspaceId,
    name: input.name,
    scopes: input.scopes,
    status: 'active',
    hint: apiKeyHint(plaintext),
    createdAt: now.toISOString(),
    ...(input.expiresAt ? { expiresAt: input.expiresAt } : {}),
  };
  try {
    await store.db.send(
      new PutCommand({
        TableName: store.tableName,
        Item: { ...keys.apiKey(hash), ...indexKeys.apiKey(input.workspaceId, record.keyId), entity: 'apiKey', ...record },
        ConditionExpression: 'attribute_not_exists(pk)',
      }),
    );
    return record;
  } catch (error) {
    if ((error as Error).name !== 'ConditionalCheckFailedException') throw error;
    const existing = await getApiKeyByHash(hash, store);
    if (!existing || existing.workspaceId !== input.workspaceId) throw new Error('This key is already registered to another workspace', { cause: error });
    return existing;
  }
}

export async function listApiKeys(workspaceId: string, store: Store = defaultStore()): Promise<ApiKeyRecord[]> {
  const { gsi1pk, gsi1skPrefix } = prefixes.apiKeysOfWorkspace(workspaceId);
  const items = (
    await queryAll(store, {
      IndexName: 'gsi1',
      KeyConditionExpression: 'gsi1pk = :pk AND begins_with(gsi1sk, :prefix)',
      ExpressionAttributeValues: { ':pk': gsi1pk, ':prefix': gsi1skPrefix },
    })
  ).map(toRecord);
  return items.sort((a, b) => a.createdAt.localeCompare(b.createdAt));
}

/** Marks a key revoked. Returns false when the workspace has no key with that id. */
export async function revokeApiKey(workspaceId: string, keyId: string, now: Date, store: Store = defaultStore()): Promise<boolean> {
  const { gsi1pk, gsi1sk } = indexKeys.apiKey(workspaceId, keyId);
  const found = await store.db.send(
    new QueryCommand({
      TableName: store.tableName,
      IndexName: 'gsi1',
      KeyConditionExpression: 'gsi1pk = :pk AND gsi1sk = :sk',
      ExpressionAttributeValues: { ':pk': gsi1pk, ':sk': gsi1sk },
      ProjectionExpression: 'pk, sk',
    }),
  );
  const item = found.Items?.[0];
  if (!item) return false;
  await store.db.send(
    new UpdateCommand({
      TableName: store.tableName,
      Key: { pk: item.pk as string, sk: item.sk as string },
      UpdateExpression: 'SET #status = :revoked, revokedAt = if_not_exists(revokedAt, :now)',
      ConditionExpression: 'workspaceId = :ws',
      ExpressionAttributeNames: { '#status': 'status' },
      ExpressionAttributeValues: { ':revoked': 'revoked', ':now': now.toISOString(), ':ws': workspaceId },
    }),
  );
  return true;
}

function toRecord(item: Record<string, unknown>): ApiKeyRecord {
  const { keyId, workspaceId, name, scopes, status, hint, createdAt, revokedAt, expiresAt } = item as unknown as ApiKeyRecord;
  return { keyId, workspaceId, name, scopes, status, hint, createdAt, ...(revokedAt ? { revokedAt } : {}), ...(expiresAt ? { expiresAt } : {}) };
}
