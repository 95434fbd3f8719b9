import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import * as z from '../../shared/zod';
import type { Store } from '../../shared/store';
import { parseItem } from '../../shared/stored-item';
import { keys } from '../../shared/table';
import { TtlCache } from '../../shared/ttl-cache';
import { isConditionFailed } from '../../shared/writes';

/**
 * The endpoint health item: since when an endpoint's events have been given up on (`failingSince`,
 * the first failure of the oldest event given up since its last success), and when it last
 * answered 2xx (`lastDeliveredAt`). Written when an event is given up and, at most every few
 * minutes per container, by a success, which clears the mark, so a healthy endpoint costs next to
 * nothing. An endpoint failing FAILING_DISABLE_AFTER_MS is disabled (`failing`).
 *
 * A success another container had (or this one, within its few minutes) may not have cleared a
 * mark set since, and a mark may predate the endpoint's re-enable: a mark older than the last
 * success written or than the re-enable says nothing, and the give-up that finds it starts the
 * count afresh from its own event's first failure, not before either.
 */

export const FAILING_DISABLE_AFTER_MS = 3 * 24 * 60 * 60 * 1000;
/** A success clears the mark at most this often per endpoint and container. */
export const HEALTH_CLEAR_EVERY_MS = 5 * 60 * 1000;

const cleared = new TtlCache<true>(10_000);

const healthItem = z.object({ failingSince: z.iso.datetime(), lastDeliveredAt: z.optional(z.iso.datetime()) });

/**
 * Notes an event given up on that first failed at `failedSince`, on an endpoint enabled since
 * `enabledSince`; answers since when the endpoint has been failing.
 */
export async function noteGivenUp(workspaceId: string, endpointId: string, failedSince: Date, enabledSince: Date, store: Store): Promise<Date> {
  // The mark is set now: the next success must clear it, however recently this container cleared one.
  cleared.delete(`${workspaceId}|${endpointId}`);
  const key = keys.webhookEndpointHealth(workspaceId, endpointId);
  const { Attributes = {} } = await store.db.send(
    new UpdateCommand({
      TableName: store.tableName,
      Key: key,
      UpdateExpression: 'SET entity = :entity, failingSince = if_not_exists(failingSince, :since)',
      ExpressionAttributeValues: { ':entity': 'webhookEndpointHealth', ':since': failedSince.toISOString() },
      ReturnValues: 'ALL_NEW',
    }),
  );
  const health = parseItem(healthItem, Attributes, 'webhook endpoint health');
  const boundary = Math.max(enabledSince.getTime(), health.lastDeliveredAt ? Date.parse(health.lastDeliveredAt) : 0);
  if (Date.parse(health.failingSince) >= boundary) return new Date(health.failingSince);
  // Stale: replaced, so the give-ups after this one count from here too.
  const fresh = new Date(Math.max(failedSince.getTime(), boundary));
  try {
    await store.db.send(
      new UpdateCommand({
        TableName: store.tableName,
        Key: key,
        UpdateExpression: 'SET failingSince = :fresh',
        ConditionExpression: 'failingSince = :stale',
        ExpressionAttributeValues: { ':fresh': fresh.toISOString(), ':stale': health.failingSince },
      }),
    );
  } catch (error) {
    // Another give-up replaced it first, or a success cleared it: this one's count stands.
    if (!isConditionFailed(error)) throw error;
  }
  return fresh;
}

/** A delivery succeeded: the endpoint is not failing (any more). */
export async function noteDelivered(workspaceId: string, endpointId: string, now: Date, store: Store): Promise<void> {
  const key = `${workspaceId}|${endpointId}`;
  if (cleared.get(key, now.getTime())) return;
  await store.db.send(
    new UpdateCommand({
      TableName: store.tableName,
      Key: keys.webhookEndpointHealth(workspaceId, endpointId),
      UpdateExpression: 'SET entity = :entity, lastDeliveredAt = :now REMOVE failingSince',
      ExpressionAttributeValues: { ':entity': 'webhookEndpointHealth', ':now': now.toISOString() },
    }),
  );
  cleared.set(key, true, HEALTH_CLEAR_EVERY_MS, now.getTime());
}

export const clearEndpointHealthCache = () => cleared.clear();
