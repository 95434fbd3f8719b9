import { GetCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import * as z from '../../shared/zod';
import { ConflictError } from '../../shared/errors';
import { keys } from '../../shared/table';
import { defaultStore } from '../../shared/default-store';
import type { Store } from '../../shared/store';
import { parseItem } from '../../shared/stored-item';
import type { Write } from '../../shared/writes';
import { dispatchStatuses, type Dispatch } from './dispatch';
import type { SendTemplateMessage } from './send-message';
import { holdsKey, keyRecordClaim, requestFingerprint } from '../../shared/idempotency-key';

/** The idempotency record of an `Idempotency-Key`: its key, its writes and its reading back. */

/**
 * A record still `in_flight` after this long belongs to a request that stopped between its
 * transaction and marking the record complete; its dispatch exists, so replay it.
 */
export const IN_FLIGHT_WINDOW_MS = 30_000;

const idempotencyRecordSchema = z.object({
  key: z.string(),
  fingerprint: z.string(),
  dispatchId: z.string(),
  state: z.enum(['in_flight', 'completed']),
  response: z.object({ dispatchId: z.string(), status: z.enum(dispatchStatuses) }),
  createdAt: z.string(),
  ttl: z.optional(z.number()),
});

export type IdempotencyRecord = z.output<typeof idempotencyRecordSchema>;

/** What a send's fingerprint covers: the request as the send reads it. */
export type FingerprintedSend = Pick<SendTemplateMessage, 'to' | 'contactName' | 'templateId' | 'variables' | 'tagIds' | 'trackingTags'>;

/**
 * A fingerprint of the send as it will be made, not of the request's bytes or spelling: JSON or a
 * form, key order, an empty list or none, a repeated or reordered tag, and any way of writing the
 * same number are the same request (docs/api.md#idempotency). `to` is the E.164 number when it is
 * one.
 */
export function sendFingerprint({ to, contactName, templateId, variables, tagIds, trackingTags }: FingerprintedSend): string {
  return requestFingerprint({ to, contactName, templateId, variables, tagIds: asSet(tagIds), trackingTags: asSet(trackingTags) });
}

const asSet = (values: readonly string[]) => [...new Set(values)].sort();

/** The record a send claims its key with: in flight, holding the answer a replay will give. */
export function inFlightRecord(idempotency: { key: string; fingerprint: string }, dispatch: Dispatch): IdempotencyRecord {
  return {
    key: idempotency.key,
    fingerprint: idempotency.fingerprint,
    dispatchId: dispatch.dispatchId,
    state: 'in_flight',
    response: { dispatchId: dispatch.dispatchId, status: dispatch.status },
    createdAt: dispatch.createdAt,
  };
}

/** The record's write for the send transaction: it claims the key unless a live record holds it. */
export function idempotencyClaim(workspaceId: string, record: IdempotencyRecord, now: Date): Write {
  return keyRecordClaim({ ...keys.idempotency(workspaceId, record.key), entity: 'idempotencyRecord', workspaceId, ...record }, now);
}

/** Gives the key back (the send failed), so a retry with it can succeed. */
export const idempotencyRelease = (workspaceId: string, key: string): Write => ({ Delete: { Key: keys.idempotency(workspaceId, key) } });

export async function getIdempotencyRecord(workspaceId: string, key: string, store: Store = defaultStore()): Promise<IdempotencyRecord | undefined> {
  const { Item } = await store.db.send(new GetCommand({ TableName: store.tableName, Key: keys.idempotency(workspaceId, key), ConsistentRead: true }));
  return Item ? parseItem(idempotencyRecordSchema, Item, 'idempotency record') : undefined;
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

/**
 * What an earlier request with this Idempotency-Key and this fingerprint got, if one did and its
 * 24 hours are not over (TTL deletes lazily): the answer to replay, or a 409 while it is in flight
 * (see `replayableResponse`).
 */
export async function earlierAnswer(
  workspaceId: string,
  idempotency: { key: string; fingerprint: string; formerFingerprint?: string | undefined },
  now: Date,
  store: Store = defaultStore(),
): Promise<IdempotencyRecord['response'] | undefined> {
  const record = await getIdempotencyRecord(workspaceId, idempotency.key, store);
  if (!record || !holdsKey(record, now)) return undefined;
  // A key another request holds is the send's last check (docs/api.md#send-a-message): this request's
  // own errors answer first, and the claim's refusal answers the conflict. A record the release
  // before decision 174 wrote holds that release's fingerprint of this request: the same request.
  if (record.fingerprint !== idempotency.fingerprint && record.fingerprint !== idempotency.formerFingerprint) return undefined;
  return replayableResponse(record, record.fingerprint, now);
}

/**
 * Another request holds this Idempotency-Key. Same request, finished (or stalled past
 * IN_FLIGHT_WINDOW_MS): its result, to replay. Same request, still running: 409. Different
 * request: 409.
 */
export function replayableResponse(record: IdempotencyRecord, fingerprint: string, now: Date): IdempotencyRecord['response'] {
  if (record.fingerprint !== fingerprint) {
    throw new ConflictError('idempotency_conflict', 'This Idempotency-Key was already used with a different request body');
  }
  const stale = now.getTime() - Date.parse(record.createdAt) > IN_FLIGHT_WINDOW_MS;
  if (record.state === 'in_flight' && !stale) {
    throw new ConflictError('idempotency_conflict', 'A request with this Idempotency-Key is still being processed; retry shortly');
  }
  return record.response;
}
