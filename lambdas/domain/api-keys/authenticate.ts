import { config } from '../../shared/config';
import { ForbiddenError, UnauthorizedError } from '../../shared/errors';
import type { Scope } from '../../shared/scopes';
import type { Store } from '../../shared/store';
import { getApiKeyByHash, type ApiKeyRecord } from './api-key-repository';
import { hashApiKey, isWellFormedApiKey } from './api-key-secret';

/** Who is calling: always derived from the API key, never from the request. */
export interface Principal {
  workspaceId: string;
  keyId: string;
  scopes: readonly Scope[];
}

interface CacheEntry {
  record: ApiKeyRecord | undefined;
  until: number;
}

/** Unknown keys are remembered briefly, so a key created a moment ago starts working quickly. */
const NEGATIVE_TTL_MS = 5_000;
const MAX_ENTRIES = 10_000;
const cache = new Map<string, CacheEntry>();

export interface AuthenticateOptions {
  now?: Date;
  store?: Store;
  /** Lookups are trusted this long: revocation takes effect within it. */
  cacheTtlMs?: number;
}

/**
 * Resolves an `X-API-Key` value to its workspace and checks the operation's scope.
 * 401 for a missing, malformed, unknown, revoked or expired key; 403 for a valid key without `scope`.
 */
export async function authenticate(rawKey: string | undefined, scope: Scope, options: AuthenticateOptions = {}): Promise<Principal> {
  const now = options.now ?? new Date();
  if (!rawKey) throw new UnauthorizedError('The X-API-Key header is required');
  const key = rawKey.trim();
  if (!isWellFormedApiKey(key)) throw new UnauthorizedError('The API key is malformed');

  const record = await lookUp(hashApiKey(key), now.getTime(), options);
  if (!record) throw new UnauthorizedError('The API key is not recognised');
  if (record.status === 'revoked') throw new UnauthorizedError('The API key has been revoked');
  if (record.expiresAt && Date.parse(record.expiresAt) <= now.getTime()) throw new UnauthorizedError('The API key has expired');
  if (!record.scopes.includes(scope)) throw new ForbiddenError(scope);

  return { workspaceId: record.workspaceId, keyId: record.keyId, scopes: record.scopes };
}

async function lookUp(hash: string, nowMs: number, options: AuthenticateOptions): Promise<ApiKeyRecord | undefined> {
  const cached = cache.get(hash);
  if (cached && cached.until > nowMs) return cached.record;

  const record = await getApiKeyByHash(hash, options.store);
  const ttl = record ? (options.cacheTtlMs ?? config.API_KEY_CACHE_TTL_SECONDS * 1000) : Math.min(NEGATIVE_TTL_MS, options.cacheTtlMs ?? NEGATIVE_TTL_MS);
  if (cache.size >= MAX_ENTRIES) cache.clear();
  cache.set(hash, { record, until: nowMs + ttl });
  return record;
}

/** Forget cached lookups (tests, and the local runtime after an admin change). */
export function clearApiKeyCache(): void {
  cache.clear();
}
