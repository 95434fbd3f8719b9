import { randomUUID } from 'node:crypto';
import { listEventDeliveries, resendEvent, resendEventsSince, sendTestEvent } from '../../lambdas/domain/webhooks/event-deliveries';
import { eventDeliveryMessageSchema } from '../../lambdas/domain/webhooks/event-queue';
import { attemptRecordUpdate } from '../../lambdas/domain/webhooks/webhook-delivery';
import { createWebhookEndpoint, disableWebhookEndpoint } from '../../lambdas/domain/webhooks/webhook-endpoint-repository';
import { newEventId } from '../../lambdas/domain/webhooks/webhook-event';
import type { AppError } from '../../lambdas/shared/errors';
import { writeOne } from '../../lambdas/shared/writes';
import { useTableAndQueues } from '../support/sqs';

const env = useTableAndQueues();
const T0 = new Date('2026-11-20T08:00:00.000Z');
const at = (minutes: number) => new Date(T0.getTime() + minutes * 60_000);
const rejection = (promise: Promise<unknown>) => promise.then(() => undefined, (error: unknown) => error as AppError);

async function endpointWithDeliveries(count: number) {
  const ws = `ws-${randomUUID().slice(0, 8)}`;
  const endpoint = await createWebhookEndpoint({ workspaceId: ws, url: 'https://hooks.example.com/in', events: null, description: null }, T0, env.table);
  const eventIds: string[] = [];
  for (let i = 0; i < count; i++) {
    const eventId = newEventId(at(i));
    eventIds.push(eventId);
    const payload = JSON.stringify({ id: eventId, type: 'message.received', timestamp: at(i).toISOString(), data: { n: i } });
    await writeOne(
      env.table,
      attemptRecordUpdate({ workspaceId: ws, endpointId: endpoint.id, eventId, type: 'message.received', payload, attemptedAt: at(i), statusCode: 500, error: null, state: 'retrying', nextAttemptAt: at(i + 1) }),
    );
  }
  return { ws, endpointId: endpoint.id, eventIds };
}
const queued = async () => (await env.queues.receiveAll()).map((body) => eventDeliveryMessageSchema.parse(body));

describe('webhook deliveries against DynamoDB Local', () => {
  it('lists an endpoint’s deliveries newest first, a signed cursor page at a time', async () => {
    const { ws, endpointId, eventIds } = await endpointWithDeliveries(3);

    const first = await listEventDeliveries(ws, endpointId, { limit: 2 }, env.table);
    expect(first.items.map((item) => item.eventId)).toEqual([eventIds[2], eventIds[1]]);
    expect(first.items[0]).toEqual({
      eventId: eventIds[2],
      type: 'message.received',
      state: 'retrying',
      attempts: 1,
      lastAttemptAt: at(2).toISOString(),
      lastStatusCode: 500,
      lastError: null,
      nextAttemptAt: at(3).toISOString(),
    });
    const second = await listEventDeliveries(ws, endpointId, { limit: 2, cursor: first.nextCursor! }, env.table);
    expect(second.items.map((item) => item.eventId)).toEqual([eventIds[0]]);
    expect(second.nextCursor).toBeNull();
    // A cursor is bound to its endpoint.
    const other = await endpointWithDeliveries(0);
    expect(await rejection(listEventDeliveries(other.ws, other.endpointId, { limit: 2, cursor: first.nextCursor! }, env.table))).toMatchObject({ code: 'validation_failed' });
  });

  it('answers another workspace’s endpoint as a missing one', async () => {
    const { endpointId, eventIds } = await endpointWithDeliveries(1);
    for (const attempt of [
      () => listEventDeliveries('ws-other', endpointId, { limit: 2 }, env.table),
      () => resendEvent('ws-other', endpointId, eventIds[0]!, env.table, env.queues),
      () => resendEventsSince('ws-other', endpointId, T0, env.table, env.queues),
      () => sendTestEvent('ws-other', endpointId, T0, env.table, env.queues),
    ]) {
      expect(await rejection(attempt())).toMatchObject({ code: 'not_found', message: 'Webhook endpoint was not found' });
    }
    expect(await queued()).toEqual([]);
  });

  it('resends one event, and every event since a time, from a first attempt with the same body', async () => {
    const { ws, endpointId, eventIds } = await endpointWithDeliveries(3);

    expect(await resendEvent(ws, endpointId, eventIds[0]!, env.table, env.queues)).toEqual({ eventId: eventIds[0] });
    expect(await queued()).toEqual([expect.objectContaining({ eventId: eventIds[0], attempt: 1, payload: expect.stringContaining('"n":0') })]);

    expect(await resendEventsSince(ws, endpointId, at(1), env.table, env.queues)).toEqual({ resent: 2, nextSince: null });
    expect((await queued()).map((message) => message.eventId)).toEqual([eventIds[1], eventIds[2]]);

    expect(await rejection(resendEvent(ws, endpointId, newEventId(T0), env.table, env.queues))).toMatchObject({ code: 'not_found' });
  });

  it('refuses to resend or test a disabled endpoint, saying how to re-enable it', async () => {
    const { ws, endpointId, eventIds } = await endpointWithDeliveries(1);
    await disableWebhookEndpoint(ws, endpointId, 'gone', T0, env.table);
    expect(await rejection(resendEvent(ws, endpointId, eventIds[0]!, env.table, env.queues))).toMatchObject({ code: 'validation_failed', message: expect.stringContaining('PATCH') });
    expect(await rejection(sendTestEvent(ws, endpointId, T0, env.table, env.queues))).toMatchObject({ code: 'validation_failed' });
    expect(await queued()).toEqual([]);
  });
});
