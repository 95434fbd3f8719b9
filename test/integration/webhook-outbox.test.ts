import { randomUUID } from 'node:crypto';
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
import { toOutboxEvent } from '../../lambdas/domain/webhooks/outbox-item';
import { createWebhookEndpoint } from '../../lambdas/domain/webhooks/webhook-endpoint-repository';
import { saveWorkspace } from '../../lambdas/domain/workspaces/workspace-repository';
import { resetContainerCaches } from '../../lib/testing';
import { template, TEMPLATE_ID } from '../support/send-fixtures';
import { inboundTextWebhook } from '../support/webhooks';
import { useTableAndQueues } from '../support/sqs';

const env = useTableAndQueues();
beforeEach(() => resetContainerCaches());
afterEach(() => env.queues.receiveAll());

const accepting: Provider = { send: () => Promise.resolve({ providerMessageId: `wamid.${randomUUID()}` }), settle: () => Promise.resolve() };

async function workspace(options: { endpoint: boolean; events?: ('message.received' | 'template.status.updated')[] }) {
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
/** The workspace's outbox, oldest event first. */
const outboxOf = async (ws: string) =>
  (await env.table.scanAll())
    .filter((item) => item.entity === 'webhookOutbox' && item.workspaceId === ws)
    .map(toOutboxEvent)
    .sort((a, b) => a.eventId.localeCompare(b.eventId));

describe('the webhook outbox against DynamoDB Local', () => {
  it('writes one message.status.updated per change of GET /v1/messages/{id}, each carrying that body, its sequence one more each time', async () => {
    const ws = await workspace({ endpoint: true });
    const dispatchId = await send(ws);
    const bodies = [toMessageStatusResource((await getDispatch(ws, dispatchId, env.table))!)];
    const remember = async () => bodies.push(toMessageStatusResource((await getDispatch(ws, dispatchId, env.table))!));

    await deliverDispatch({ dispatchId, workspaceId: ws, receiveCount: 1, maxReceives: 5 }, { providerFor: () => accepting, store: env.table });
    await remember();
    await report(ws, dispatchId, 'delivered', { billable: true, category: 'marketing', pricing_model: 'PMP' });
    await report(ws, dispatchId, 'read', { billable: true, category: 'marketing', pricing_model: 'PMP' });
    await remember();

    const events = await outboxOf(ws);
    const data = events.map((event) => (JSON.parse(event.payload) as { data: { sequence: number; status: string } }).data);
    expect(events.map((event) => event.type)).toEqual(Array(events.length).fill('message.status.updated'));
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
    const envelope = JSON.parse(events[0]!.payload) as Record<string, unknown>;
    expect(Object.keys(envelope)).toEqual(['id', 'type', 'timestamp', 'data']);
    expect(envelope.id).toBe(events[0]!.eventId);
  });

  it('writes no outbox item for a workspace without an endpoint, and still counts the sequence', async () => {
    const ws = await workspace({ endpoint: false });
    const dispatchId = await send(ws);
    await deliverDispatch({ dispatchId, workspaceId: ws, receiveCount: 1, maxReceives: 5 }, { providerFor: () => accepting, store: env.table });
    await report(ws, dispatchId, 'delivered');

    expect(await outboxOf(ws)).toEqual([]);
    expect(await getDispatch(ws, dispatchId, env.table)).toMatchObject({ status: 'delivered', sequence: 4 });
  });

  it('fits the first report of a dispatch with the maximum 20 tags, and its event, into one transaction', async () => {
    const ws = await workspace({ endpoint: true });
    const dispatchId = await send(ws, Array.from({ length: 20 }, (_, i) => `tag-${i}`));
    expect(await deliverDispatch({ dispatchId, workspaceId: ws, receiveCount: 1, maxReceives: 5 }, { providerFor: () => accepting, store: env.table })).toBe('sent');
    expect((await outboxOf(ws)).map((event) => (JSON.parse(event.payload) as { data: { status: string } }).data.status)).toEqual(['processing', 'sent']);
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

  it('writes template.status.updated when a template’s status changes, and nothing when it does not', async () => {
    const ws = await workspace({ endpoint: true });
    const id = syncedTemplateId(ws, 'order_shipped', 'id');
    await saveTemplate(ws, { ...template, id }, env.table);
    const change = (event: string) => ({ field: 'message_template_status_update' as const, value: { event, message_template_name: 'order_shipped', message_template_language: 'id' } });

    expect(await applyTemplateWebhook(await accountOf(ws), change('PAUSED'), env.table)).toBe('applied');
    expect(await applyTemplateWebhook(await accountOf(ws), change('PAUSED'), env.table)).toBe('unchanged');

    expect((await getTemplate(ws, id, env.table))!.status).toBe('PAUSED');
    const events = await outboxOf(ws);
    expect(events.map((event) => event.type)).toEqual(['template.status.updated']);
    expect((JSON.parse(events[0]!.payload) as { data: unknown }).data).toEqual({ templateId: id, displayName: 'Order shipped', language: 'id', category: null, status: 'PAUSED', previousStatus: 'APPROVED' });
  });
});
