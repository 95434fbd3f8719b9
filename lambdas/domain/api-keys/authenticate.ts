import { config } from '../../shared/config';
import { ForbiddenError, UnauthorizedError } from '../../shared/errors';
import type { Scope } from '../../shared/scopes';
import type { Store } from '../../shared/store';
import { TtlCache } from '../../shared/ttl-cache';
import { getApiKeyByHash, type ApiKeyRecord } from './api-key-repository';
import { hashApiKey, isWellFormedApiKey } from './api-key-secret';

/** Who is calling: always derived from the API key, never from the request. */
export interface Principal {
  workspaceId: string;
  keyId: string;
  /** The key's name: reports show it as the sending API client. */
  keyName: string;
  scopes: readonly Scope[];
}

/** Unknown keys are remembered briefly, so a key created a moment ago starts working quickly. */
const NEGATIVE_TTL_MS = 5_000;
const cache = new TtlCache<ApiKeyRecord | undefined>();

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
  const principal = await identify(rawKey, options);
  if (!principal.scopes.includes(scope)) throw new ForbiddenError(scope);
  return principal;
}

/**
 * Resolves an `X-API-Key` value to its workspace, whatever the operation: the checks `authenticate`
 * answers 401 for, and only those. The usage-plan authorizer uses it, so API Gateway refuses
 * exactly the keys every route would refuse, and leaves the scope (403) to the route.
 */
export async function identify(rawKey: string | undefined, options: AuthenticateOptions = {}): Promise<Principal> {
  const now = options.now ?? new Date();
  if (!rawKey) throw new UnauthorizedError('The X-API-Key header is required');
  const key = rawKey.trim();
  if (!isWellFormedApiKey(key)) throw new UnauthorizedError('The API key is malformed');

  const record = await lookUp(hashApiKey(key), now.getTime(), options);
  if (!record) throw new UnauthorizedError('The API key is not recognised');
  if (record.status === 'revoked') throw new UnauthorizedError('The API key has been revoked');
  if (record.expiresAt && Date.parse(record.expiresAt) <= now.getTime()) throw new UnauthorizedError('The API key has expired');

  return { workspaceId: record.workspaceId, keyId: record.keyId, keyName: record.name, scopes: record.scopes };
}

function lookUp(hash: string, nowMs: number, options: AuthenticateOptions): Promise<ApiKeyRecord | undefined> {
  const ttl = options.cacheTtlMs ?? config.API_KEY_CACHE_TTL_SECONDS * 1000;
  return cache.getOrLoad(hash, nowMs, () => getApiKeyByHash(hash, options.store), (record) => (record ? ttl : Math.min(NEGATIVE_TTL_MS, ttl)));
}

/** Forget cached lookups (tests, and the local runtime after an admin change). */
export function clearApiKeyCache(): void {
  cache.clear();
}
