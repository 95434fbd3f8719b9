import { QueryCommand } from '@aws-sdk/lib-dynamodb';
import * as z from '../../shared/zod';
import type { Store } from '../../shared/store';
import { parseItem } from '../../shared/stored-item';
import { accessPatterns, type KeyCondition } from '../../shared/table';
import { TtlCache } from '../../shared/ttl-cache';
import type { Write } from '../../shared/writes';
import { outboxPut } from './outbox-item';
import { keepsMissedEvents } from './missed-events';
import type { SubscribableEvent } from './webhook-event';

/**
 * Whether a workspace's changes make webhook events at all (decisions 77, 89). An outbox write
 * costs one more item in the change's transaction, and a dispatch change a fan-out read of the
 * workspace's endpoints; a workspace without an endpoint that takes events or keeps those it misses
 * (one disabled for less than MISSED_EVENTS_KEPT_MS, decision 165) would pay either for nothing. So
 * the answer is read once per container and trusted for a while: a "yes" for a minute (an
 * endpoint disabled meanwhile only costs work the publisher then finds no endpoint for), a "no"
 * for 10 s, the longest a new endpoint waits for its first events.
 */
export const EVENTS_WANTED_TTL_MS = 60_000;
export const EVENTS_UNWANTED_TTL_MS = 10_000;

const cache = new TtlCache<boolean>(10_000);
const endpointStatus = z.object({ status: z.enum(['enabled', 'disabled']), disabledAt: z.optional(z.string()), updatedAt: z.string() });
const withStatus = (condition: KeyCondition) => ({ ...condition, ExpressionAttributeNames: { ...condition.ExpressionAttributeNames, '#status': 'status' } });

export async function writesEvents(workspaceId: string, store: Store, nowMs = Date.now()): Promise<boolean> {
  return cache.getOrLoad(
    workspaceId,
    nowMs,
    async () => {
      // Only the statuses (at most WEBHOOK_ENDPOINTS_PER_WORKSPACE small items, one page).
      const { Items = [] } = await store.db.send(
        new QueryCommand({ TableName: store.tableName, ...withStatus(accessPatterns.webhookEndpointsOfWorkspace(workspaceId)), ProjectionExpression: '#status, disabledAt, updatedAt' }),
      );
      return Items.map((item) => parseItem(endpointStatus, item, 'webhook endpoint')).some((endpoint) => endpoint.status === 'enabled' || keepsMissedEvents(endpoint, nowMs));
    },
    (wanted) => (wanted ? EVENTS_WANTED_TTL_MS : EVENTS_UNWANTED_TTL_MS),
  );
}

/** The outbox write of the event `build` makes, for the change's transaction; none when the workspace takes no events. */
export async function outboxFor(workspaceId: string, build: () => SubscribableEvent, store: Store): Promise<Write | undefined> {
  return (await writesEvents(workspaceId, store)) ? outboxPut(workspaceId, build()) : undefined;
}

export const clearEventGateCache = () => cache.clear();
