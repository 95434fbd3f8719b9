import { GetCommand } from '@aws-sdk/lib-dynamodb';
import * as z from '../../shared/zod';
import { ConflictError } from '../../shared/errors';
import { holdsKey, keyRecordClaim, requestFingerprint } from '../../shared/idempotency-key';
import type { Store } from '../../shared/store';
import { parseItem } from '../../shared/stored-item';
import { keys } from '../../shared/table';
import type { Write } from '../../shared/writes';

/**
 * An `Idempotency-Key` on creating a webhook endpoint or rotating its secret (docs/api.md#idempotency,
 * decision 197). The key's record holds the answer, its secret included, and is written in the
 * change's own transaction: a retry whose first request committed gets that answer, and one whose
 * first did not makes the change. Nothing is written after the change, so a record is never
 * in flight, unlike a send's.
 */

/** The request a key was given with, as its fingerprint will cover it. */
export type EndpointRequest =
  | { route: 'createWebhookEndpoint'; url: string; events: readonly string[] | null; description: string | null }
  | { route: 'rotateWebhookSecret'; endpointId: string; overlapSeconds: number };

export interface EndpointRequestKey {
  key: string;
  fingerprint: string;
}

const recordSchema = z.object({ fingerprint: z.string(), response: z.record(z.string(), z.unknown()), ttl: z.optional(z.number()) });

/** The key and its request's fingerprint: the same request however it is written (events in any order, repeated). */
export function endpointRequestKey(key: string, request: EndpointRequest): EndpointRequestKey {
  const canonical = request.route === 'createWebhookEndpoint' && request.events ? { ...request, events: [...new Set(request.events)].sort() } : request;
  return { key, fingerprint: requestFingerprint(canonical) };
}

async function recordOf(workspaceId: string, key: EndpointRequestKey, now: Date, store: Store) {
  const { Item } = await store.db.send(new GetCommand({ TableName: store.tableName, Key: keys.endpointIdempotency(workspaceId, key.key), ConsistentRead: true }));
  const record = Item ? parseItem(recordSchema, Item, 'endpoint idempotency record') : undefined;
  return record && holdsKey(record, now) ? record : undefined;
}

/**
 * The answer an earlier request with this key and this request got, if one did in the last 24 h. A
 * key another request holds is left to the claim's refusal (`answerOfTakenKey`), so that this
 * request's own errors (a 404, a URL refused) answer first, as on a send.
 */
export async function earlierEndpointAnswer<T>(workspaceId: string, key: EndpointRequestKey, now: Date, store: Store): Promise<T | undefined> {
  const record = await recordOf(workspaceId, key, now, store);
  return record?.fingerprint === key.fingerprint ? (record.response as T) : undefined;
}

/** The record's write for the change's transaction: it claims the key unless a live record holds it. */
export function endpointKeyClaim(workspaceId: string, key: EndpointRequestKey, response: object, now: Date): Write {
  return keyRecordClaim({ ...keys.endpointIdempotency(workspaceId, key.key), entity: 'endpointIdempotencyRecord', workspaceId, fingerprint: key.fingerprint, response }, now);
}

/** The claim was refused: the same request committed first (its answer), or another holds the key (409). */
export async function answerOfTakenKey<T>(workspaceId: string, key: EndpointRequestKey, now: Date, store: Store): Promise<T> {
  const record = await recordOf(workspaceId, key, now, store);
  if (record?.fingerprint === key.fingerprint) return record.response as T;
  throw new ConflictError('idempotency_conflict', 'This Idempotency-Key was already used with a different request');
}
