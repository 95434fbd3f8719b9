import { createHash } from 'node:crypto';
import * as z from './zod';

/**
 * What every route that takes an `Idempotency-Key` shares (docs/api.md#idempotency): the header,
 * how long a key is kept, how a request is fingerprinted, and how a key's record is claimed.
 */

/** Keys live 24 h. */
export const IDEMPOTENCY_TTL_SECONDS = 24 * 60 * 60;

/** The optional header; sent twice it is refused (`headersOf`). */
export const idempotencyKeyHeaders = z.object({
  'idempotency-key': z.optional(z.string().check(z.regex(/^[\x21-\x7e]{1,255}$/, 'Idempotency-Key must be 1 to 255 visible ASCII characters'))),
});

/** A fingerprint of a value's canonical JSON: key order and undefined members do not count. */
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

/** A key's record, claimed unless a live record holds it (TTL deletes lazily; an expired record must not block the key). */
export function keyRecordClaim(item: Record<string, unknown>, now: Date) {
  const nowSeconds = Math.floor(now.getTime() / 1000);
  return {
    Put: {
      Item: { ...item, ttl: nowSeconds + IDEMPOTENCY_TTL_SECONDS },
      ConditionExpression: 'attribute_not_exists(pk) OR #ttl < :now',
      ExpressionAttributeNames: { '#ttl': 'ttl' },
      ExpressionAttributeValues: { ':now': nowSeconds },
    },
  };
}

/** Whether a record read still holds its key: TTL deletes lazily. */
export const holdsKey = (record: { ttl?: number | undefined }, now: Date): boolean => record.ttl === undefined || record.ttl >= Math.floor(now.getTime() / 1000);
