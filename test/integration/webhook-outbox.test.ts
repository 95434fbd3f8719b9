import { randomUUID } from 'node:crypto';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import type { AttributeValue } from '@aws-sdk/client-dynamodb';
import { DynamoDBStreamsClient } from '@aws-sdk/client-dynamodb-streams';
import { unmarshall } from '@aws-sdk/util-dynamodb';
import { deliverDispatch } from '../../lambdas/domain/delivery/deliver-dispatch';
import { applyProviderReports } from '../../lambdas/domain/delivery/provider-reports';
import { toMessageStatusResource } from '../../lambdas/domain/messages/dispatch';
import { getDispatch } from '../../lambdas/domain/messages/dispatch-repository';
import { sendTemplateMessage } from '../../lambdas/domain/messages/send-message';
import type { Provider } from '../../lambdas/domain/providers/provider';
import { statusWebhook } from '../../lambdas/domain/providers/whatsapp-webhook';
import { syncedTemplateId } from '../../lambdas/domain/templates/synced-template';
import { applyTemplateWebhook } from '../../lambdas/domain/templates/template-webhook';
import { getTemplate, saveTemplate } from '../../lambdas/domain/templates/template-repository';
import type { EventDeliveryMessage } from '../../lambdas/domain/webhooks/event-queue';
import { toOutboxEvent } from '../../lambdas/domain/webhooks/outbox-item';
import { publishStreamEvents } from '../../lambdas/domain/webhooks/publish-events';
import { streamEventOf } from '../../lambdas/domain/webhooks/stream-events';
import { createWebhookEndpoint } from '../../lambdas/domain/webhooks/webhook-endpoint-repository';
import { listMarketingOptOuts } from '../../lambdas/domain/workspaces/marketing-opt-out';
import { applyMarketingPreference, optOutFromReply, recordMarketingOptOut, removeMarketingOptOut } from '../../lambdas/domain/workspaces/marketing-opt-out-changes';
import { saveWorkspace } from '../../lambdas/domain/workspaces/workspace-repository';
import { startStreamPoller, type StreamPoller } from '../../lib/local/stream-poller';
import { isPublishable } from '../../lambdas/domain/webhooks/stream-filters';
import { resetContainerCaches } from '../../lib/testing';
import { assertDocumentedEvent } from '../support/openapi-contract';
import { template, TEMPLATE_ID } from '../support/send-fixtures';
import { inboundTextWebhook } from '../support/webhooks';
import { createTestQueues, useTableAndQueues } from '../support/sqs';

const env = useTableAndQueues();
beforeEach(() => resetContainerCaches());
afterEach(() => env.queues.receiveAll());

/**
 * The publisher over the table's stream, as the local runtime runs it (the stack's filters,
 * lib/local/stream-poller.ts), putting what it publishes on a webhook-events queue of its own.
 */
const events = {} as { queue: Awaited<ReturnType<typeof createTestQueues>>; poller: StreamPoller; dynamodb: DynamoDBClient; streams: DynamoDBStreamsClient; published: EventDeliveryMessage[] };
beforeAll(async () => {
  events.queue = await createTestQueues();
  events.published = [];
  events.dynamodb = new DynamoDBClient({ endpoint: process.env.DYNAMODB_ENDPOINT!, region: process.env.AWS_REGION! });
  events.streams = new DynamoDBStreamsClient({ endpoint: process.env.DYNAMODB_ENDPOINT!, region: process.env.AWS_REGION! });
  events.poller = await startStreamPoller({
    dynamodb: events.dynamodb,
    streams: events.streams,
    region: process.env.AWS_REGION!,
    tableName: process.env.TABLE_NAME!,
    functionName: 'publish-webhook-events',
    filter: isPublishable,
    consumer: {
      handler: async ({ Records }) => {
        const found = Records.flatMap((record) => streamEventOf(record, unmarshall(record.dynamodb!.NewImage as Record<string, AttributeValue>)) ?? []);
        const published = await publishStreamEvents(found, env.table, events.queue);
        for (const outcome of published) if (outcome.status === 'rejected') throw outcome.reason;
        return { batchItemFailures: [] };
      },
    },
    onError: (error) => console.error(error),
  });
});
afterAll(async () => {
  await events.poller.stop();
  events.queue.close();
  events.dynamodb.destroy();
  events.streams.destroy();
});

/** The workspace's published events once `count` are in and the stream has had time to add more, oldest first. */
async function publishedFor(ws: string, count: number): Promise<EventDeliveryMessage[]> {
  const mine = () => events.published.filter((message) => message.workspaceId === ws);
  const deadline = Date.now() + 15_000;
  while (mine().length < count && Date.now() < deadline) {
    events.published.push(...((await events.queue.receiveAll()) as EventDeliveryMessage[]));
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  // Three more polls of the stream, for any event beyond those expected.
  await new Promise((resolve) => setTimeout(resolve, 700));
  events.published.push(...((await events.queue.receiveAll()) as EventDeliveryMessage[]));
  // Each body exactly as an endpoint will get it, which the OpenAPI document's webhooks describe.
  for (const message of mine()) assertDocumentedEvent(message.payload);
  return mine().sort((a, b) => a.eventId.localeCompare(b.eventId));
}

const accepting: Provider = { send: () => Promise.resolve({ providerMessageId: `wamid.${randomUUID()}` }), settle: () => Promise.resolve() };

async function workspace(options: { endpoint: boolean; events?: ('message.received' | 'template.status.updated' | 'marketing_opt_out.updated')[] }) {
  const ws = `ws-${randomUUID().slice(0, 8)}`;
  const businessAccountId = String(Date.now()) + String(Math.floor(Math.random() * 1000));
  await saveWorkspace({ id: ws, name: ws, rupiahPerCredit: 150, settings: { whatsappPhoneNumberId: `num-${ws}`, whatsappBusinessAccountId: businessAccountId } }, new Date(), env.table);
  await saveTemplate(ws, template, env.table);
  if (options.endpoint) await createWebhookEndpoint({ workspaceId: ws, url: 'https://hooks.example.com/in', events: options.events ?? null, description: null }, new Date(), env.table);
  return ws;
}
async function accountOf(ws: string) {
  const { getWorkspace } = await import('../../lambdas/domain/workspaces/workspace-repository');
  return (await getWorkspace(ws, env.table))!.settings.whatsappBusinessAccountId!;
}
const send = async (ws: string, trackingTags = ['promo']) =>
  (
    await sendTemplateMessage(
      { workspaceId: ws, apiClient: { id: randomUUID(), name: 'k' }, to: '081234567890', templateId: TEMPLATE_ID, variables: { name: 'B', order: '1' }, tagIds: [], trackingTags, now: new Date() },
      { store: env.table, queue: env.queues },
    )
  ).dispatchId;
const report = (ws: string, dispatchId: string, status: 'delivered' | 'read', pricing?: object) =>
  applyProviderReports(
    statusWebhook(`num-${ws}`, [{ id: `wamid.${dispatchId}`, status, timestamp: String(Math.floor(Date.now() / 1000)), biz_opaque_callback_data: dispatchId, ...(pricing ? { pricing } : {}) }]),
    env.table,
  );
/** The workspace's outbox, oldest event first, each body as the OpenAPI document's webhooks describe it. */
async function outboxOf(ws: string) {
  const events = (await env.table.scanAll())
    .filter((item) => item.entity === 'webhookOutbox' && item.workspaceId === ws)
    .map(toOutboxEvent)
    .sort((a, b) => a.eventId.localeCompare(b.eventId));
  for (const event of events) assertDocumentedEvent(event.payload);
  return events;
}

describe('webhook events against DynamoDB Local and its stream', () => {
  it('publishes one message.status.updated per change of GET /v1/messages/{id}, from the table’s stream, each carrying that body, its sequence one more each time', async () => {
    const ws = await workspace({ endpoint: true });
    const dispatchId = await send(ws);
    const bodies = [toMessageStatusResource((await getDispatch(ws, dispatchId, env.table))!)];
    const remember = async () => bodies.push(toMessageStatusResource((await getDispatch(ws, dispatchId, env.table))!));

    await deliverDispatch({ dispatchId, workspaceId: ws, receiveCount: 1, maxReceives: 5 }, { providerFor: () => accepting, store: env.table });
    await remember();
    await report(ws, dispatchId, 'delivered', { billable: true, category: 'marketing', pricing_model: 'PMP' });
    await report(ws, dispatchId, 'read', { billable: true, category: 'marketing', pricing_model: 'PMP' });
    await remember();

    const published = await publishedFor(ws, 4);
    const data = published.map((message) => (JSON.parse(message.payload) as { data: { sequence: number; status: string } }).data);
    expect(published.map((message) => message.type)).toEqual(Array(published.length).fill('message.status.updated'));
    // processing, sent (the claim, the provider's answer), delivered with its pricing (one write), read.
    expect(data.map((body) => [body.sequence, body.status])).toEqual([
      [2, 'processing'],
      [3, 'sent'],
      [4, 'delivered'],
      [5, 'delivered'],
    ]);
    expect(data[2]).toMatchObject({ pricing: { billable: true, category: 'marketing', pricingModel: 'PMP' }, readAt: null });
    expect(bodies[0]!.sequence).toBe(1);
    expect(data[1]).toStrictEqual(bodies[1]);
    expect(data.at(-1)).toStrictEqual(bodies[2]);
    const envelope = JSON.parse(published[0]!.payload) as Record<string, unknown>;
    expect(Object.keys(envelope)).toEqual(['id', 'type', 'timestamp', 'data']);
    expect(envelope.id).toBe(published[0]!.eventId);
    // The status writes carry no outbox item: the stream record of each write is its event.
    expect(await outboxOf(ws)).toEqual([]);
  });

  it('publishes no status event for a workspace without an endpoint, and still counts the sequence', async () => {
    const ws = await workspace({ endpoint: false });
    const dispatchId = await send(ws);
    await deliverDispatch({ dispatchId, workspaceId: ws, receiveCount: 1, maxReceives: 5 }, { providerFor: () => accepting, store: env.table });
    await report(ws, dispatchId, 'delivered');
    // Then a change the publisher does publish: once its events are in, the stream is past ours.
    const other = await workspace({ endpoint: true });
    await deliverDispatch({ dispatchId: await send(other), workspaceId: other, receiveCount: 1, maxReceives: 5 }, { providerFor: () => accepting, store: env.table });
    expect(await publishedFor(other, 2)).toHaveLength(2);

    expect(await publishedFor(ws, 0)).toEqual([]);
    expect(await outboxOf(ws)).toEqual([]);
    expect(await getDispatch(ws, dispatchId, env.table)).toMatchObject({ status: 'delivered', sequence: 4 });
  });

  it('publishes the first report of a dispatch with the maximum 20 tags, which writes every tag link and rollup in one transaction', async () => {
    const ws = await workspace({ endpoint: true });
    const dispatchId = await send(ws, Array.from({ length: 20 }, (_, i) => `tag-${i}`));
    expect(await deliverDispatch({ dispatchId, workspaceId: ws, receiveCount: 1, maxReceives: 5 }, { providerFor: () => accepting, store: env.table })).toBe('sent');
    expect((await publishedFor(ws, 2)).map((message) => (JSON.parse(message.payload) as { data: { status: string } }).data.status)).toEqual(['processing', 'sent']);
  });

  it('writes message.received with an inbound message, once however often the webhook repeats it', async () => {
    const ws = await workspace({ endpoint: true });
    const webhook = inboundTextWebhook({ phoneNumberId: `num-${ws}`, from: '6281234567890', name: 'Budi', id: 'wamid.in-1', text: 'Sudah terima' });

    await applyProviderReports(webhook, env.table);
    await applyProviderReports(webhook, env.table);

    const events = await outboxOf(ws);
    expect(events.map((event) => event.type)).toEqual(['message.received']);
    expect((JSON.parse(events[0]!.payload) as { data: unknown }).data).toEqual({
      conversationId: expect.any(String),
      message: { id: 'wamid.in-1', direction: 'inbound', type: 'text', text: 'Sudah terima', payload: null, media: null, reaction: null, dispatchId: null, status: null, readAt: null, createdAt: expect.any(String) },
      contact: { phone: '+6281234567890', userId: null, name: 'Budi' },
    });
  });

  it('writes marketing_opt_out.updated with each change of an opt-out, and nothing for a change refused (a stale stop included) or for a workspace without an endpoint', async () => {
    const ws = await workspace({ endpoint: true, events: ['marketing_opt_out.updated'] });
    const tap = { workspaceId: ws, phone: '6281234567890', type: 'button', text: 'Stop promotions', payload: 'Stop promotions', occurredAt: '2026-11-02T03:00:00.000Z', providerMessageId: 'wamid.stop-1' };
    expect(await optOutFromReply(tap, env.table)).toBe(true);
    expect(await optOutFromReply({ ...tap, occurredAt: '2026-11-02T04:00:00.000Z' }, env.table)).toBe(true); // kept: no second event
    // A resume older than the tap lifts nothing; a later one lifts it.
    expect(await applyMarketingPreference({ workspaceId: ws, phone: '6281234567890', preference: 'resume', occurredAt: '2026-11-02T02:59:59.000Z' }, env.table)).toBe(false);
    expect(await applyMarketingPreference({ workspaceId: ws, phone: '6281234567890', preference: 'resume', occurredAt: '2026-11-03T00:00:00.000Z' }, env.table)).toBe(true);
    // A stop older than that resume, arriving after it (decision 151): no opt-out, and no event.
    expect(await applyMarketingPreference({ workspaceId: ws, phone: '6281234567890', preference: 'stop', occurredAt: '2026-11-02T05:00:00.000Z' }, env.table)).toBe(false);
    expect(await listMarketingOptOuts(ws, env.table)).toEqual([]);
    await recordMarketingOptOut({ workspaceId: ws, phone: '+6281200000001', optedOutAt: '2026-11-04T00:00:00.000Z', source: 'admin' }, env.table);
    expect(await removeMarketingOptOut(ws, '+6281200000001', env.table, new Date('2026-11-05T00:00:00.000Z'))).toBe(true);
    expect(await removeMarketingOptOut(ws, '+6281200000001', env.table)).toBe(false);

    const events = await outboxOf(ws);
    expect(events.map((event) => event.type)).toEqual(Array(4).fill('marketing_opt_out.updated'));
    expect(events.map((event) => (JSON.parse(event.payload) as { data: unknown }).data)).toEqual([
      { phone: '+6281234567890', optedOut: true, by: 'button', at: '2026-11-02T03:00:00.000Z' },
      { phone: '+6281234567890', optedOut: false, by: 'whatsapp', at: '2026-11-03T00:00:00.000Z' },
      { phone: '+6281200000001', optedOut: true, by: 'admin', at: '2026-11-04T00:00:00.000Z' },
      { phone: '+6281200000001', optedOut: false, by: 'admin', at: '2026-11-05T00:00:00.000Z' },
    ]);

    const quiet = await workspace({ endpoint: false });
    expect(await optOutFromReply({ ...tap, workspaceId: quiet }, env.table)).toBe(true);
    expect(await outboxOf(quiet)).toEqual([]);
    expect(await listMarketingOptOuts(quiet, env.table)).toHaveLength(1);
  });

  it('writes template.status.updated when a template’s status changes, and nothing when it does not', async () => {
    const ws = await workspace({ endpoint: true });
    const id = syncedTemplateId(ws, 'order_shipped', 'id');
    // Its own version id: the workspace has the fixture template, with the fixture's version, already.
    await saveTemplate(ws, { ...template, id, versions: [{ ...template.versions[0]!, id: randomUUID() }] }, env.table);
    const change = (event: string) => ({ field: 'message_template_status_update' as const, value: { event, message_template_name: 'order_shipped', message_template_language: 'id' } });

    expect(await applyTemplateWebhook(await accountOf(ws), change('PAUSED'), env.table)).toBe('applied');
    expect(await applyTemplateWebhook(await accountOf(ws), change('PAUSED'), env.table)).toBe('unchanged');

    expect((await getTemplate(ws, id, env.table))!.status).toBe('PAUSED');
    const events = await outboxOf(ws);
    expect(events.map((event) => event.type)).toEqual(['template.status.updated']);
    expect((JSON.parse(events[0]!.payload) as { data: unknown }).data).toEqual({ templateId: id, displayName: 'Order shipped', language: 'id', category: null, status: 'PAUSED', previousStatus: 'APPROVED' });
  });
});
