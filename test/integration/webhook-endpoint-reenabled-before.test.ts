import { randomUUID } from 'node:crypto';
import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { deliverEvent } from '../../lambdas/domain/webhooks/deliver-event';
import { createWebhookEndpoint, getWebhookEndpoint, updateWebhookEndpoint } from '../../lambdas/domain/webhooks/webhook-endpoint-repository';
import { newEventId } from '../../lambdas/domain/webhooks/webhook-event';
import { keys } from '../../lambdas/shared/table';
import { resetContainerCaches } from '../../lib/testing';
import { useTableAndQueues } from '../support/sqs';

const env = useTableAndQueues();
const T0 = new Date('2026-11-20T08:00:00.000Z');
const DAY = 24 * 60 * 60_000;
const t0 = T0.getTime();
const unreachable = { resolve: () => Promise.reject(new Error('ENOTFOUND')), allowLocal: false };

beforeEach(() => resetContainerCaches());
afterEach(async () => void (await env.queues.receiveAll()));

const attempt = (ws: string, endpointId: string, now: number, firstFailure: number) =>
  deliverEvent(
    { workspaceId: ws, endpointId, eventId: newEventId(new Date(now)), type: 'message.received', payload: '{}', attempt: 11, failingSince: new Date(firstFailure).toISOString() },
    { store: env.table, queue: env.queues, now: () => new Date(now), urlRules: unreachable, timeoutMs: 2_000 },
  );
const statusOf = async (ws: string, endpointId: string) => (await getWebhookEndpoint(ws, endpointId, env.table))!.status;

describe('upgrade: an endpoint re-enabled by the release before enabledAt was kept', () => {
  it('is not disabled as `failing` again by the first event given up after the re-enable', async () => {
    const ws = `ws-${randomUUID().slice(0, 8)}`;
    const endpoint = await createWebhookEndpoint({ workspaceId: ws, url: 'https://hooks.example.com/in', events: null, description: null }, new Date(t0 - 30 * DAY), env.table);
    await attempt(ws, endpoint.id, t0 + 1.1 * DAY, t0);
    await attempt(ws, endpoint.id, t0 + 3.1 * DAY, t0 + 2 * DAY);
    expect(await statusOf(ws, endpoint.id)).toBe('disabled');
    await updateWebhookEndpoint(ws, endpoint.id, { status: 'enabled' }, new Date(t0 + 10 * DAY), env.table);
    await env.table.db.send(new UpdateCommand({ TableName: env.table.tableName, Key: keys.webhookEndpoint(ws, endpoint.id), UpdateExpression: 'REMOVE enabledAt, disabledAt' }));

    expect(await attempt(ws, endpoint.id, t0 + 11.6 * DAY, t0 + 10.5 * DAY)).toBe('abandoned');
    expect(await statusOf(ws, endpoint.id)).toBe('enabled');
    // Its failures since the re-enable still count: 3 days of them disable it.
    await attempt(ws, endpoint.id, t0 + 13.6 * DAY, t0 + 12.5 * DAY);
    expect(await statusOf(ws, endpoint.id)).toBe('disabled');
  });
});
