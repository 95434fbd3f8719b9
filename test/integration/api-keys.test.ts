import { authenticate, clearApiKeyCache } from '../../lambdas/domain/api-keys/authenticate';
import { ApiKeyRotationRefusedError, listApiKeys, revokeApiKey, rotateApiKey, saveApiKey } from '../../lambdas/domain/api-keys/api-key-repository';
import { generateApiKey, hashApiKey } from '../../lambdas/domain/api-keys/api-key-secret';
import { createTestTable } from '../support/dynamodb';

let table: Awaited<ReturnType<typeof createTestTable>>;
const now = new Date('2026-05-01T00:00:00Z');

beforeAll(async () => {
  table = await createTestTable();
});
afterAll(() => table.drop());
beforeEach(() => clearApiKeyCache());

describe('API keys in DynamoDB', () => {
  it('stores a key only as its SHA-256 hash, never the plaintext', async () => {
    const plaintext = generateApiKey();
    await saveApiKey(plaintext, { workspaceId: 'ws-hash', name: 'ci', scopes: ['messages:read'] }, now, table);

    const dump = JSON.stringify(await table.scanAll());
    expect(dump).toContain(`KEY#${hashApiKey(plaintext)}`);
    expect(dump).not.toContain(plaintext);
    expect(dump).not.toContain(plaintext.slice(9, 30));
  });

  it('authenticates a stored key to its workspace and scopes', async () => {
    const plaintext = generateApiKey();
    const saved = await saveApiKey(plaintext, { workspaceId: 'ws-auth', name: 'ci', scopes: ['messages:read', 'templates:read'] }, now, table);
    await expect(authenticate(plaintext, 'templates:read', { store: table })).resolves.toEqual({
      workspaceId: 'ws-auth',
      keyId: saved.keyId,
      keyName: 'ci',
      scopes: ['messages:read', 'templates:read'],
    });
    await expect(authenticate(plaintext, 'messages:send', { store: table })).rejects.toMatchObject({ status: 403, code: 'forbidden' });
  });

  it('lists a workspace’s keys (never another’s) and revokes one so it stops authenticating', async () => {
    const first = generateApiKey();
    const second = generateApiKey();
    const a = await saveApiKey(first, { workspaceId: 'ws-list', name: 'first', scopes: ['messages:read'] }, now, table);
    await saveApiKey(second, { workspaceId: 'ws-list', name: 'second', scopes: ['messages:read'] }, new Date('2026-05-02T00:00:00Z'), table);
    await saveApiKey(generateApiKey(), { workspaceId: 'ws-other', name: 'other', scopes: ['messages:read'] }, now, table);

    expect((await listApiKeys('ws-list', table)).map((key) => [key.name, key.status])).toEqual([
      ['first', 'active'],
      ['second', 'active'],
    ]);
    expect(await revokeApiKey('ws-other', a.keyId, now, table)).toBe(false);
    expect(await revokeApiKey('ws-list', a.keyId, now, table)).toBe(true);

    expect((await listApiKeys('ws-list', table)).find((key) => key.keyId === a.keyId)).toMatchObject({ status: 'revoked', revokedAt: now.toISOString() });
    await expect(authenticate(first, 'messages:read', { store: table, cacheTtlMs: 0 })).rejects.toMatchObject({ status: 401, message: 'The API key has been revoked' });
    await expect(authenticate(second, 'messages:read', { store: table, cacheTtlMs: 0 })).resolves.toMatchObject({ workspaceId: 'ws-list' });
  });

  it('stops a revoked key within the default cache TTL of 30 s, and not before a cached lookup ages out', async () => {
    const plaintext = generateApiKey();
    const saved = await saveApiKey(plaintext, { workspaceId: 'ws-ttl', name: 'ci', scopes: ['messages:read'] }, now, table);
    const at = (ms: number) => ({ store: table, now: new Date(now.getTime() + ms) });
    await expect(authenticate(plaintext, 'messages:read', at(0))).resolves.toMatchObject({ keyId: saved.keyId });

    await revokeApiKey('ws-ttl', saved.keyId, now, table);
    // Within the window the container still trusts its lookup: that is the documented bound.
    await expect(authenticate(plaintext, 'messages:read', at(29_999))).resolves.toMatchObject({ keyId: saved.keyId });
    await expect(authenticate(plaintext, 'messages:read', at(30_000))).rejects.toMatchObject({ status: 401, message: 'The API key has been revoked' });
  });

  it('saving the same plaintext twice keeps one record (seeding is idempotent)', async () => {
    const plaintext = generateApiKey();
    const first = await saveApiKey(plaintext, { workspaceId: 'ws-idem', name: 'k', scopes: ['messages:read'] }, now, table);
    const again = await saveApiKey(plaintext, { workspaceId: 'ws-idem', name: 'k', scopes: ['messages:read'] }, now, table);
    expect(again.keyId).toBe(first.keyId);
    expect(await listApiKeys('ws-idem', table)).toHaveLength(1);
    await expect(saveApiKey(plaintext, { workspaceId: 'ws-thief', name: 'k', scopes: ['messages:read'] }, now, table)).rejects.toThrow(
      'This key is already registered to another workspace',
    );
  });
});

/**
 * A key's `expiresAt` is a hard expiry (a contractor's key, say): rotation replaces the secret, it
 * never extends the grant. An expired key is refused as a revoked one is, and a replacement keeps
 * the expiry of the key it replaces.
 */
describe('rotating a key with a hard expiry', () => {
  const later = (days: number) => new Date(now.getTime() + days * 86_400_000);

  it('refuses an expired key, which stays refused, and writes no replacement', async () => {
    const plaintext = generateApiKey();
    const old = await saveApiKey(plaintext, { workspaceId: 'ws-expired', name: 'contractor', scopes: ['messages:send'], expiresAt: '2026-04-01T00:00:00.000Z' }, now, table);

    await expect(rotateApiKey('ws-expired', old.keyId, generateApiKey(), later(1), now, table)).rejects.toThrow(
      new ApiKeyRotationRefusedError(`Key ${old.keyId} expired at 2026-04-01T00:00:00.000Z; create a new key instead`),
    );
    expect(await listApiKeys('ws-expired', table)).toEqual([old]);
    await expect(authenticate(plaintext, 'messages:send', { store: table, now, cacheTtlMs: 0 })).rejects.toMatchObject({ status: 401 });
  });

  it('gives the replacement of a key that will expire the same expiry', async () => {
    const old = await saveApiKey(generateApiKey(), { workspaceId: 'ws-contractor', name: 'contractor', scopes: ['messages:send'], expiresAt: '2026-06-01T00:00:00.000Z' }, now, table);
    const replacement = generateApiKey();

    const rotated = await rotateApiKey('ws-contractor', old.keyId, replacement, later(1), now, table);

    expect(rotated?.created.expiresAt).toBe('2026-06-01T00:00:00.000Z');
    await expect(authenticate(replacement, 'messages:send', { store: table, now: later(30), cacheTtlMs: 0 })).resolves.toMatchObject({ workspaceId: 'ws-contractor' });
    await expect(authenticate(replacement, 'messages:send', { store: table, now: new Date('2026-06-01T00:00:00.000Z'), cacheTtlMs: 0 })).rejects.toMatchObject({ status: 401 });
  });
});
