import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import * as z from '../../shared/zod';
import type { Store } from '../../shared/store';
import { parseItem } from '../../shared/stored-item';
import { keys } from '../../shared/table';
import { TtlCache } from '../../shared/ttl-cache';
import { isConditionFailed } from '../../shared/writes';

/**
 * The endpoint health item: since when an endpoint's events have been given up on (`failingSince`,
 * the first failure of the oldest event given up since its last success). Written only when an
 * event is given up and, at most every few minutes per container, cleared by a success, so a
 * healthy endpoint costs next to nothing. An endpoint failing FAILING_DISABLE_AFTER_MS is disabled
 * (`failing`).
 */

export const FAILING_DISABLE_AFTER_MS = 3 * 24 * 60 * 60 * 1000;
/** A success clears the mark at most this often per endpoint and container. */
export const HEALTH_CLEAR_EVERY_MS = 5 * 60 * 1000;

const cleared = new TtlCache<true>(10_000);

/** Notes an event given up on that first failed at `failedSince`; answers since when the endpoint has been failing. */
export async function noteGivenUp(workspaceId: string, endpointId: string, failedSince: Date, store: Store): Promise<Date> {
  // The mark is set now: the next success must clear it, however recently this container cleared one.
  cleared.delete(`${workspaceId}|${endpointId}`);
  const { Attributes = {} } = await store.db.send(
    new UpdateCommand({
      TableName: store.tableName,
      Key: keys.webhookEndpointHealth(workspaceId, endpointId),
      UpdateExpression: 'SET entity = :entity, failingSince = if_not_exists(failingSince, :since)',
      ExpressionAttributeValues: { ':entity': 'webhookEndpointHealth', ':since': failedSince.toISOString() },
      ReturnValues: 'ALL_NEW',
    }),
  );
  return new Date(parseItem(z.object({ failingSince: z.iso.datetime() }), Attributes, 'webhook endpoint health').failingSince);
}

/** A delivery succeeded: the endpoint is not failing (any more). */
export async function noteDelivered(workspaceId: string, endpointId: string, now: Date, store: Store): Promise<void> {
  const key = `${workspaceId}|${endpointId}`;
  if (cleared.get(key, now.getTime())) return;
  try {
    await store.db.send(
      new UpdateCommand({
        TableName: store.tableName,
        Key: keys.webhookEndpointHealth(workspaceId, endpointId),
        UpdateExpression: 'REMOVE failingSince',
        ConditionExpression: 'attribute_exists(failingSince)',
      }),
    );
  } catch (error) {
    if (!isConditionFailed(error)) throw error;
  }
  cleared.set(key, true, HEALTH_CLEAR_EVERY_MS, now.getTime());
}

export const clearEndpointHealthCache = () => cleared.clear();
