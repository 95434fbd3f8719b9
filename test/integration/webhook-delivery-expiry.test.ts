import { randomUUID } from 'node:crypto';
import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { listEventDeliveries, resendEvent, resendEventsSince } from '../../lambdas/domain/webhooks/event-deliveries';
import { attemptRecordUpdate, DELIVERY_RECORD_DAYS } from '../../lambdas/domain/webhooks/webhook-delivery';
import { createWebhookEndpoint } from '../../lambdas/domain/webhooks/webhook-endpoint-repository';
import { newEventId } from '../../lambdas/domain/webhooks/webhook-event';
import { keys } from '../../lambdas/shared/table';
import { writeOne } from '../../lambdas/shared/writes';
import { useTableAndQueues } from '../support/sqs';

/**
 * docs/api.md#webhook-events: delivery records "are kept 14 days after an event's last attempt",
 * and (scopes table) "a resend sends the last 14 days' again to the endpoint's URL, which the key
 * may change". DynamoDB's TTL deletes an expired item only eventually (AWS: typically within a
 * few days), so a record past its `ttl` may still be in the table: the reads must pass it over.
 */
const env = useTableAndQueues();
const DAY = 24 * 60 * 60 * 1000;

describe('webhook delivery records past their 14 days, not yet deleted by TTL', () => {
  it('are neither listed nor resent', async () => {
    const ws = `ws-${randomUUID().slice(0, 8)}`;
    const now = Date.now();
    const endpoint = await createWebhookEndpoint({ workspaceId: ws, url: 'https://hooks.example.com/in', events: null, description: null }, new Date(now - 30 * DAY), env.table);
    const attemptedAt = new Date(now - 20 * DAY);
    const eventId = newEventId(attemptedAt);
    const payload = JSON.stringify({ id: eventId, type: 'message.received', timestamp: attemptedAt.toISOString(), data: { text: 'a customer message' } });
    await writeOne(env.table, attemptRecordUpdate({ workspaceId: ws, endpointId: endpoint.id, eventId, type: 'message.received', payload, attempt: 1, attemptedAt, statusCode: 200, error: null, state: 'delivered', nextAttemptAt: null }));
    const { Item } = await env.table.db.send(new GetCommand({ TableName: env.table.tableName, Key: keys.webhookDelivery(ws, endpoint.id, eventId) }));
    expect(Item!.ttl).toBe(Math.floor(attemptedAt.getTime() / 1000) + DELIVERY_RECORD_DAYS * 86_400);
    expect(Item!.ttl).toBeLessThan(Math.floor(now / 1000));

    const listed = await listEventDeliveries(ws, endpoint.id, { limit: 20 }, env.table);
    const resent = await resendEventsSince(ws, endpoint.id, new Date(now - 30 * DAY), env.table, env.queues);
    const queued = await env.queues.receiveAll();
    const single = await resendEvent(ws, endpoint.id, eventId, env.table, env.queues).then(() => 'resent', (error: { status?: number }) => error.status);
    await env.queues.receiveAll();

    expect({ listed: listed.items.map((item) => item.eventId), resent, queued: queued.length, single }).toEqual({ listed: [], resent: { resent: 0, nextSince: null }, queued: 0, single: 404 });
  });
});
