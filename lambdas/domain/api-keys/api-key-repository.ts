import { randomUUID } from 'node:crypto';
import { GetCommand, QueryCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import * as z from '../../shared/zod';
import { queryAll } from '../../shared/query-all';
import { accessPatterns, indexKeys, keys, type ItemKey } from '../../shared/table';
import { defaultStore } from '../../shared/default-store';
import type { Store } from '../../shared/store';
import { scopes } from '../../shared/scopes';
import { parseItem } from '../../shared/stored-item';
import { isConditionFailed, transactWrite, writeOne, type Write } from '../../shared/writes';
import { apiKeyHint, hashApiKey } from './api-key-secret';

/** The API key item: stored by the hash of its secret, listed per workspace on gsi1. */
const apiKeyRecordSchema = z.object({
  keyId: z.string(),
  workspaceId: z.string(),
  name: z.string(),
  scopes: z.array(z.enum(scopes)),
  status: z.enum(['active', 'revoked']),
  hint: z.string(),
  createdAt: z.string(),
  revokedAt: z.optional(z.string()),
  /** Optional hard expiry, checked on every request (not a TTL: an expired key stays listable). */
  expiresAt: z.optional(z.string()),
  /** The key a rotation made to replace this one: its `expiresAt` is then the overlap's end, not a hard expiry. */
  replacedBy: z.optional(z.string()),
  /**
   * Set on every key written since decision 230, whose rotation always sets `replacedBy`: such a key
   * without `replacedBy` was never rotated, and its `expiresAt` is a hard expiry. A key without this
   * mark may have been rotated by a release that set only `expiresAt` (rotatedBefore).
   */
  recordsReplacement: z.optional(z.literal(true)),
});

export type ApiKeyRecord = z.output<typeof apiKeyRecordSchema>;

export interface NewApiKey {
  workspaceId: string;
  name: string;
  scopes: ApiKeyRecord['scopes'];
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
    // In UTC, whatever offset it was given with (`key create --expires-at`, a seed): listed as stored.
    ...(input.expiresAt ? { expiresAt: new Date(input.expiresAt).toISOString() } : {}),
    recordsReplacement: true,
  };
  try {
    await writeOne(store, apiKeyCreate(hash, record));
    return record;
  } catch (error) {
    if (!isConditionFailed(error)) throw error;
    const existing = await getApiKeyByHash(hash, store);
    if (!existing || existing.workspaceId !== input.workspaceId) throw new Error('This key is already registered to another workspace', { cause: error });
    return existing;
  }
}

/** Stores a new key by its hash; refused (ConditionalCheckFailed) when the hash is stored already. */
const apiKeyCreate = (hash: string, record: ApiKeyRecord): Write => ({
  Put: { Item: { ...keys.apiKey(hash), ...indexKeys.apiKey(record.workspaceId, record.keyId), entity: 'apiKey', ...record }, ConditionExpression: 'attribute_not_exists(pk)' },
});

/** A workspace's key by its id, with the item key it is stored under. */
export async function findApiKey(workspaceId: string, keyId: string, store: Store = defaultStore()): Promise<{ key: ItemKey; record: ApiKeyRecord } | undefined> {
  const found = await store.db.send(new QueryCommand({ TableName: store.tableName, ...accessPatterns.apiKeyOfWorkspace(workspaceId, keyId) }));
  const item = found.Items?.[0];
  if (!item) return undefined;
  return { key: parseItem(z.object({ pk: z.string(), sk: z.string() }), item, 'api key'), record: toRecord(item) };
}

/**
 * Replaces a key: stores `plaintext` as a new key with the old one's name, scopes and expiry (if it
 * has one), and sets the old key to expire at `oldKeyExpiresAt` (or keeps its own expiry if that
 * comes sooner), in one transaction. Returns undefined when the workspace has no such key; refused
 * when it is revoked or expired, or changed meanwhile.
 */
export async function rotateApiKey(
  workspaceId: string,
  keyId: string,
  plaintext: string,
  oldKeyExpiresAt: Date,
  now: Date,
  store: Store = defaultStore(),
): Promise<{ created: ApiKeyRecord; replaced: ApiKeyRecord } | undefined> {
  const old = await findApiKey(workspaceId, keyId, store);
  if (!old) return undefined;
  if (old.record.status === 'revoked') throw new ApiKeyRotationRefusedError(`Key ${keyId} is revoked; create a new key instead`);
  // Its expiry is the overlap a rotation gave it: carried to a new key, it would end that one too.
  const successor = old.record.replacedBy ?? (old.record.expiresAt && !old.record.recordsReplacement ? await rotatedBefore(old.record, old.record.expiresAt, store) : undefined);
  if (successor) throw new ApiKeyRotationRefusedError(`Key ${keyId} was rotated already: key ${successor} replaces it; rotate that one instead`);
  const hardExpiry = old.record.expiresAt;
  // A rotation replaces the secret; it never gives an expired key life again or outlives its expiry.
  if (hardExpiry && Date.parse(hardExpiry) <= now.getTime()) throw new ApiKeyRotationRefusedError(`Key ${keyId} expired at ${hardExpiry}; create a new key instead`);
  const expiresAt = hardExpiry && Date.parse(hardExpiry) < oldKeyExpiresAt.getTime() ? hardExpiry : oldKeyExpiresAt.toISOString();
  const created: ApiKeyRecord = {
    keyId: randomUUID(),
    workspaceId,
    name: old.record.name,
    scopes: old.record.scopes,
    status: 'active',
    hint: apiKeyHint(plaintext),
    createdAt: now.toISOString(),
    ...(hardExpiry ? { expiresAt: hardExpiry } : {}),
    recordsReplacement: true,
  };
  const result = await transactWrite(store, {
    created: apiKeyCreate(hashApiKey(plaintext), created),
    replaced: {
      Update: {
        Key: old.key,
        UpdateExpression: 'SET expiresAt = :expiresAt, replacedBy = :replacedBy',
        ConditionExpression: '#status = :active AND workspaceId = :ws AND attribute_not_exists(replacedBy)',
        ExpressionAttributeNames: { '#status': 'status' },
        ExpressionAttributeValues: { ':expiresAt': expiresAt, ':replacedBy': created.keyId, ':active': 'active', ':ws': workspaceId },
      },
    },
  });
  if (!result.committed) throw new ApiKeyRotationRefusedError(`Key ${keyId} changed meanwhile (${JSON.stringify(result.refused)}); run the command again`);
  return { created, replaced: { ...old.record, expiresAt, replacedBy: created.keyId } };
}

/** A rotation that cannot go ahead; the message says why. */
export class ApiKeyRotationRefusedError extends Error {
  override name = 'ApiKeyRotationRefusedError';
}

/** The longest overlap the admin CLI ever gave a rotated key (30 days, since rotation came). */
const LONGEST_OVERLAP_MS = 30 * 86_400_000;

/**
 * The key that replaced `key`, written before decision 230, in a rotation made before rotations
 * kept `replacedBy` (they set only the old key's `expiresAt`: the overlap's end, or its own sooner
 * expiry). Such a rotation wrote a key unmarked as `key` is, of its name and scopes, no earlier than
 * `key` and at most the longest overlap before `expiresAt`: the earliest such key is taken, revoked
 * or not (revoking the replacement leaves the old key's expiry the overlap's end). Without this,
 * rotating such a key again would carry its overlap's end to the new key as a hard expiry, and the
 * integration would get 401 when it passed. An unmarked key with an `--expires-at` within 30 days
 * of a later unmarked key of its name and scopes still reads as rotated: nothing stored tells it apart.
 */
async function rotatedBefore(key: ApiKeyRecord, expiresAt: string, store: Store): Promise<string | undefined> {
  const earliest = Date.parse(expiresAt) - LONGEST_OVERLAP_MS;
  const scopesOf = (of: ApiKeyRecord) => of.scopes.join(' ');
  const successors = (await listApiKeys(key.workspaceId, store)).filter(
    (other) =>
      !other.recordsReplacement &&
      other.keyId !== key.keyId &&
      other.name === key.name &&
      scopesOf(other) === scopesOf(key) &&
      other.createdAt >= key.createdAt &&
      Date.parse(other.createdAt) >= earliest,
  );
  return successors[0]?.keyId;
}

/** A workspace's keys, oldest first. */
export async function listApiKeys(workspaceId: string, store: Store = defaultStore()): Promise<ApiKeyRecord[]> {
  const items = (await queryAll(store, accessPatterns.apiKeysOfWorkspace(workspaceId))).map(toRecord);
  return items.sort((a, b) => a.createdAt.localeCompare(b.createdAt));
}

/** Marks a key revoked. Returns false when the workspace has no key with that id. */
export async function revokeApiKey(workspaceId: string, keyId: string, now: Date, store: Store = defaultStore()): Promise<boolean> {
  const found = await findApiKey(workspaceId, keyId, store);
  if (!found) return false;
  await store.db.send(
    new UpdateCommand({
      TableName: store.tableName,
      Key: found.key,
      UpdateExpression: 'SET #status = :revoked, revokedAt = if_not_exists(revokedAt, :now)',
      ConditionExpression: 'workspaceId = :ws',
      ExpressionAttributeNames: { '#status': 'status' },
      ExpressionAttributeValues: { ':revoked': 'revoked', ':now': now.toISOString(), ':ws': workspaceId },
    }),
  );
  return true;
}

function toRecord(item: Record<string, unknown>): ApiKeyRecord {
  return parseItem(apiKeyRecordSchema, item, 'api key');
}
