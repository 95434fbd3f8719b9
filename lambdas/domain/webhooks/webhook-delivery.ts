import { GetCommand, QueryCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import * as z from '../../shared/zod';
import type { Store } from '../../shared/store';
import { parseItem } from '../../shared/stored-item';
import { accessPatterns, keys } from '../../shared/table';
import { isConditionFailed, type Write } from '../../shared/writes';
import { firstEventIdAt } from './webhook-event';

/**
 * The delivery record: one event's deliveries to one endpoint (how many attempts, the last
 * answer, the next try), written by the consumer after each attempt, read by the deliveries
 * routes, and the source of a resend (it keeps the POST body). Records expire
 * DELIVERY_RECORD_DAYS after the event's last attempt.
 */

export const DELIVERY_RECORD_DAYS = 14;

/** Where a delivery stands: delivered (2xx), waiting for its next attempt, or given up (410, the last attempt failed, the endpoint gone or disabled). */
export const deliveryStates = ['delivered', 'retrying', 'failed'] as const;
export type DeliveryState = (typeof deliveryStates)[number];

/**
 * Where an attempt stands among its event's attempts at one endpoint (decision 209): attempts
 * are ordered by round, then by number, never by time (a message SQS hands out again is always
 * later).
 */
export interface AttemptPlace {
  /** 0 (or absent) for the event as published; a resend's is one more than its record's. */
  round?: number;
  /** 1 for a round's first attempt; one more for each retry. */
  attempt: number;
  /** Set on a next attempt queued again (event-queue.ts): tells that copy from the message first queued. */
  attemptId?: string;
}

/** One attempt as the consumer records it. */
export interface AttemptRecord extends AttemptPlace {
  workspaceId: string;
  endpointId: string;
  eventId: string;
  type: string;
  /** The POST body, for resends. */
  payload: string;
  attemptedAt: Date;
  statusCode: number | null;
  error: string | null;
  state: DeliveryState;
  nextAttemptAt: Date | null;
}

/**
 * Records an attempt: counts it, and keeps its answer, what comes next and its place. Only an
 * attempt that comes after the recorded one is recorded (`turnOf` is the same order, read before
 * the POST): a later round's (a resend overtakes the round before it, whatever its state), or the
 * same round's later attempt while the round still waits for one (`retrying`). Anything else (a
 * slow attempt a resend overtook, a copy of an attempt recorded while both were in flight) leaves
 * the record as it is. A record written before attempts had places has no `round`: any attempt
 * goes.
 */
export function attemptRecordUpdate(attempt: AttemptRecord): Write {
  const at = attempt.attemptedAt.toISOString();
  return {
    Update: {
      Key: keys.webhookDelivery(attempt.workspaceId, attempt.endpointId, attempt.eventId),
      UpdateExpression:
        'SET entity = :entity, workspaceId = :ws, endpointId = :endpoint, eventId = :event, #type = :type, payload = :payload, #state = :state, ' +
        'lastAttemptAt = :at, lastStatusCode = :code, lastError = :error, nextAttemptAt = :next, #ttl = :ttl, #round = :round, roundAttempt = :attempt, attemptId = :attemptId ADD attempts :one',
      ConditionExpression: 'attribute_not_exists(#round) OR #round < :round OR (#round = :round AND roundAttempt < :attempt AND #state = :retrying)',
      ExpressionAttributeNames: { '#type': 'type', '#state': 'state', '#ttl': 'ttl', '#round': 'round' },
      ExpressionAttributeValues: {
        ':entity': 'webhookDelivery',
        ':ws': attempt.workspaceId,
        ':endpoint': attempt.endpointId,
        ':event': attempt.eventId,
        ':type': attempt.type,
        ':payload': attempt.payload,
        ':state': attempt.state,
        ':at': at,
        ':code': attempt.statusCode,
        ':error': attempt.error,
        ':next': attempt.nextAttemptAt?.toISOString() ?? null,
        ':ttl': Math.floor(attempt.attemptedAt.getTime() / 1000) + DELIVERY_RECORD_DAYS * 24 * 60 * 60,
        ':one': 1,
        ':round': attempt.round ?? 0,
        ':attempt': attempt.attempt,
        ':attemptId': attempt.attemptId ?? null,
        ':retrying': 'retrying',
      },
    },
  };
}

/**
 * Claims a resend's round for the message that is about to make its first attempt, until `until`
 * (the attempt's time and its record's write): taken while no attempt of the round is recorded and
 * no other message holds an unexpired claim of it. Two resends queued before either was attempted
 * are messages of one round, which a consumer batch may post at once, each before the other's record
 * (decision 220); the claim lapses, so a message whose invocation died after claiming is attempted
 * when SQS hands it out again, a visibility timeout later.
 */
export function roundClaimUpdate(attempt: Pick<AttemptRecord, 'workspaceId' | 'endpointId' | 'eventId' | 'round'>, now: Date, until: Date): Write {
  return {
    Update: {
      Key: keys.webhookDelivery(attempt.workspaceId, attempt.endpointId, attempt.eventId),
      UpdateExpression: 'SET claimedRound = :round, claimedUntil = :until',
      ConditionExpression: '#round < :round AND (attribute_not_exists(claimedRound) OR claimedRound < :round OR claimedUntil <= :now)',
      ExpressionAttributeNames: { '#round': 'round' },
      ExpressionAttributeValues: { ':round': attempt.round ?? 0, ':until': until.toISOString(), ':now': now.toISOString() },
    },
  };
}

/** Counts an attempt whose result was not recorded (`attemptRecordUpdate`): the one recorded stands. */
export function attemptCountUpdate(attempt: Pick<AttemptRecord, 'workspaceId' | 'endpointId' | 'eventId'>): Write {
  return { Update: { Key: keys.webhookDelivery(attempt.workspaceId, attempt.endpointId, attempt.eventId), UpdateExpression: 'ADD attempts :one', ExpressionAttributeValues: { ':one': 1 } } };
}

export type MissedEvent = Pick<AttemptRecord, 'workspaceId' | 'endpointId' | 'eventId' | 'type' | 'payload'>;

/**
 * Keeps `missed` as `missedDeliveryUpdate` says; false when its record had an answer already. One
 * UpdateItem of its own: the publisher writes nothing else, and `writeOne` would bring it every
 * command the document client has.
 */
export async function recordMissedEvent(missed: MissedEvent, now: Date, store: Store, reason: MissReason = ENDPOINT_DISABLED): Promise<boolean> {
  try {
    await store.db.send(new UpdateCommand({ ...missedDeliveryUpdate(missed, now, reason).Update, TableName: store.tableName }));
    return true;
  } catch (error) {
    if (isConditionFailed(error)) return false;
    throw error;
  }
}

/** Why a delivery was given up without a POST: its endpoint was disabled when the event was made, or before its next attempt. */
export const ENDPOINT_DISABLED = 'endpoint_disabled';
/** …or the endpoint's `events` no longer name its type (a PATCH after it was queued). */
export const UNSUBSCRIBED = 'unsubscribed';
type MissReason = typeof ENDPOINT_DISABLED | typeof UNSUBSCRIBED;

/**
 * An event the endpoint missed because it was disabled (or no longer takes its type): kept as a
 * `failed` delivery, so that "resend since" finds it once the endpoint is re-enabled. A new record
 * has no attempt (`attempts` 0, `lastAttemptAt` null, `lastError` the reason); one waiting for its
 * next attempt (`retrying`) is given up, its last attempt's answer kept and nothing counted. A
 * delivered or failed one is left as it is.
 */
function missedDeliveryUpdate(missed: MissedEvent, now: Date, reason: MissReason): Extract<Write, { Update: unknown }> {
  return {
    Update: {
      Key: keys.webhookDelivery(missed.workspaceId, missed.endpointId, missed.eventId),
      UpdateExpression:
        'SET entity = :entity, workspaceId = :ws, endpointId = :endpoint, eventId = :event, #type = :type, payload = :payload, #state = :failed, nextAttemptAt = :none, ' +
        'attempts = if_not_exists(attempts, :zero), lastAttemptAt = if_not_exists(lastAttemptAt, :none), lastStatusCode = if_not_exists(lastStatusCode, :none), ' +
        'lastError = if_not_exists(lastError, :reason), #ttl = if_not_exists(#ttl, :ttl), #round = if_not_exists(#round, :zero), roundAttempt = if_not_exists(roundAttempt, :zero)',
      ConditionExpression: 'attribute_not_exists(#state) OR #state = :retrying',
      ExpressionAttributeNames: { '#type': 'type', '#state': 'state', '#ttl': 'ttl', '#round': 'round' },
      ExpressionAttributeValues: {
        ':entity': 'webhookDelivery',
        ':ws': missed.workspaceId,
        ':endpoint': missed.endpointId,
        ':event': missed.eventId,
        ':type': missed.type,
        ':payload': missed.payload,
        ':failed': 'failed',
        ':retrying': 'retrying',
        ':none': null,
        ':zero': 0,
        ':reason': reason,
        ':ttl': Math.floor(now.getTime() / 1000) + DELIVERY_RECORD_DAYS * 24 * 60 * 60,
      },
    },
  };
}

const storedDeliverySchema = z.object({
  eventId: z.string(),
  type: z.string(),
  payload: z.string(),
  state: z.enum(deliveryStates),
  /** 0 for an event the endpoint missed while disabled. */
  attempts: z.int().check(z.gte(0)),
  lastAttemptAt: z.nullable(z.string()),
  lastStatusCode: z.nullable(z.int()),
  lastError: z.nullable(z.string()),
  nextAttemptAt: z.nullable(z.string()),
  /** The round of the last attempt recorded (a resend queues the next); absent on records written before decision 209. */
  round: z.optional(z.int().check(z.gte(0))),
});
export type StoredDelivery = z.output<typeof storedDeliverySchema>;

const toDelivery = (item: Record<string, unknown>) => parseItem(storedDeliverySchema, item, 'webhook delivery');

/**
 * Records past their 14 days: DynamoDB's TTL deletes them only eventually (within days), and until
 * then they are neither listed nor resent, as the docs promise no record older (a resend goes to the
 * endpoint's URL, which a key may have changed).
 */
function unexpiredOnly<C extends { ExpressionAttributeNames?: Record<string, string>; ExpressionAttributeValues?: Record<string, unknown> }>(condition: C, now: Date) {
  return {
    ...condition,
    FilterExpression: 'attribute_not_exists(#ttl) OR #ttl > :now',
    ExpressionAttributeNames: { ...condition.ExpressionAttributeNames, '#ttl': 'ttl' },
    ExpressionAttributeValues: { ...condition.ExpressionAttributeValues, ':now': Math.floor(now.getTime() / 1000) },
  };
}
const hasExpired = (item: Record<string, unknown>, now: Date) => typeof item.ttl === 'number' && item.ttl <= Math.floor(now.getTime() / 1000);

/** A page of an endpoint's deliveries, newest event first (short, or empty, where records past their 14 days were passed over). */
export async function deliveriesOfEndpoint(
  workspaceId: string,
  endpointId: string,
  page: { limit: number; startKey?: Record<string, unknown> },
  store: Store,
  now: Date,
): Promise<{ items: StoredDelivery[]; lastKey: Record<string, unknown> | undefined }> {
  const { Items = [], LastEvaluatedKey } = await store.db.send(
    new QueryCommand({ TableName: store.tableName, ...unexpiredOnly(accessPatterns.deliveriesOfEndpoint(workspaceId, endpointId), now), ScanIndexForward: false, Limit: page.limit, ExclusiveStartKey: page.startKey }),
  );
  return { items: Items.map(toDelivery), lastKey: LastEvaluatedKey };
}

/**
 * Up to `limit` of an endpoint's deliveries of events made at or after `since` (and before
 * `until`), oldest first, read page by page: a Query page stops at 1 MB, and records keep their
 * POST bodies, so 500 of them may take several.
 */
export async function deliveriesSince(workspaceId: string, endpointId: string, since: Date, limit: number, store: Store, now: Date, until?: Date): Promise<StoredDelivery[]> {
  const condition = unexpiredOnly(accessPatterns.deliveriesOfEndpoint(workspaceId, endpointId, `DLV#${firstEventIdAt(since)}`, until ? `DLV#${firstEventIdAt(until)}` : undefined), now);
  const items: StoredDelivery[] = [];
  let cursor: Record<string, unknown> | undefined;
  do {
    const page = await store.db.send(new QueryCommand({ TableName: store.tableName, ...condition, Limit: Math.min(1_000, limit - items.length), ExclusiveStartKey: cursor }));
    items.push(...(page.Items ?? []).map(toDelivery));
    cursor = page.LastEvaluatedKey;
  } while (cursor && items.length < limit);
  return items;
}

export async function getDelivery(workspaceId: string, endpointId: string, eventId: string, store: Store, now: Date): Promise<StoredDelivery | undefined> {
  const { Item } = await store.db.send(new GetCommand({ TableName: store.tableName, Key: keys.webhookDelivery(workspaceId, endpointId, eventId) }));
  return Item && !hasExpired(Item, now) ? toDelivery(Item) : undefined;
}

/** What a record says of the attempts made: its last attempt's place, whether its round is over, and when its next attempt is due. */
const recordedPlaceSchema = z.object({
  round: z.int(),
  roundAttempt: z.int(),
  attemptId: z.nullable(z.string()),
  state: z.enum(deliveryStates),
  lastAttemptAt: z.nullable(z.string()),
  nextAttemptAt: z.nullable(z.string()),
});
export type RecordedPlace = z.output<typeof recordedPlaceSchema>;

/**
 * The place of the delivery's last recorded attempt; undefined when none was recorded, or the record
 * predates places (decision 209). Eventually consistent (half the read units): what it guards
 * against is a message handed out again minutes later; two copies in flight at once are kept to
 * one result by `attemptRecordUpdate`'s condition.
 */
export async function recordedPlace(delivery: Pick<AttemptRecord, 'workspaceId' | 'endpointId' | 'eventId'>, store: Store): Promise<RecordedPlace | undefined> {
  const { Item } = await store.db.send(
    new GetCommand({
      TableName: store.tableName,
      Key: keys.webhookDelivery(delivery.workspaceId, delivery.endpointId, delivery.eventId),
      ProjectionExpression: '#round, roundAttempt, attemptId, #state, lastAttemptAt, nextAttemptAt',
      ExpressionAttributeNames: { '#round': 'round', '#state': 'state' },
    }),
  );
  return Item?.round === undefined ? undefined : parseItem(recordedPlaceSchema, { attemptId: null, ...Item }, 'webhook delivery');
}

/** What an attempt may do: POST; only queue its next attempt (its own was recorded already); or nothing. */
export type AttemptTurn = { turn: 'post' } | { turn: 'requeue'; nextAttemptAt: Date; failedAt: Date } | { turn: 'replayed' };

/**
 * An attempt POSTs only when it comes after the recorded one, in `attemptRecordUpdate`'s order:
 * a later round, or the same round's later attempt while the round waits (`retrying`). The very
 * message whose attempt is the recorded one (same id) came back after its record was written, with
 * its next attempt perhaps never queued (the queue refused it, or the invocation ended first): it
 * queues that again under an id of its own, without a POST; of the two, the one attempted second
 * finds another id recorded and is refused, so copies end there. Anything else (an attempt of a round a resend overtook, one the round has passed, one of a
 * round delivered or given up) was made already: no POST, nothing queued.
 */
export function turnOf(place: AttemptPlace, recorded: RecordedPlace | undefined): AttemptTurn {
  if (!recorded) return { turn: 'post' };
  const round = place.round ?? 0;
  if (recorded.round !== round) return recorded.round < round ? { turn: 'post' } : { turn: 'replayed' };
  if (recorded.state !== 'retrying') return { turn: 'replayed' };
  if (recorded.roundAttempt < place.attempt) return { turn: 'post' };
  if (recorded.roundAttempt === place.attempt && recorded.attemptId === (place.attemptId ?? null) && recorded.nextAttemptAt && recorded.lastAttemptAt) {
    return { turn: 'requeue', nextAttemptAt: new Date(recorded.nextAttemptAt), failedAt: new Date(recorded.lastAttemptAt) };
  }
  return { turn: 'replayed' };
}
