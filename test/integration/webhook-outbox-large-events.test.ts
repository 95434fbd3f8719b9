import { randomUUID } from 'node:crypto';
import { recordInboundMessage } from '../../lambdas/domain/conversations/inbound-message';
import { resendEventsSince } from '../../lambdas/domain/webhooks/event-deliveries';
import { attemptRecordUpdate } from '../../lambdas/domain/webhooks/webhook-delivery';
import { newEventId } from '../../lambdas/domain/webhooks/webhook-event';
import { writeOne } from '../../lambdas/shared/writes';
import type { EventDeliveryMessage } from '../../lambdas/domain/webhooks/event-queue';
import { toOutboxEvent } from '../../lambdas/domain/webhooks/outbox-item';
import { publishStreamEvents } from '../../lambdas/domain/webhooks/publish-events';
import type { StreamEvent } from '../../lambdas/domain/webhooks/stream-events';
import { createWebhookEndpoint } from '../../lambdas/domain/webhooks/webhook-endpoint-repository';
import { saveWorkspace } from '../../lambdas/domain/workspaces/workspace-repository';
import { resetContainerCaches } from '../../lib/testing';
import { useTableAndQueues } from '../support/sqs';

const env = useTableAndQueues();
beforeEach(() => resetContainerCaches());
afterEach(() => env.queues.receiveAll());

/**
 * docs/api.md#webhook-events: `message.received` goes to every enabled endpoint that takes it, "so an
 * event is never lost". WhatsApp lets a customer send a text of up to 65,536 characters, and the
 * webhook stores it whole; its event carries it whole too, once per endpoint. The publisher puts a
 * batch's messages on the queue ten to a SendMessageBatch, whatever their size, and SQS refuses a
 * batch whose messages add up to more than its limit (1 MiB; 256 KiB before 2025): the whole request,
 * every event in it, whichever workspace it is of.
 */
describe('the publisher with long customer messages', () => {
  // SQS's own limit on one SendMessageBatch: the sum of its messages' bodies (fauxqs holds it too).
  const SQS_BATCH_BYTES = 1_048_576;
  it('publishes a burst of long message.received events to a workspace’s two endpoints, and another workspace’s event in the same stream batch: every event, every endpoint', async () => {
    const workspace = async (urls: string[]) => {
      const ws = `ws-${randomUUID().slice(0, 8)}`;
      await saveWorkspace({ id: ws, name: ws, rupiahPerCredit: 150, settings: { whatsappPhoneNumberId: `num-${ws}` } }, new Date(), env.table);
      for (const url of urls) await createWebhookEndpoint({ workspaceId: ws, url, events: null, description: null }, new Date(), env.table);
      return ws;
    };
    const ws = await workspace(['https://crm.example.com/hooks', 'https://warehouse.example.com/hooks']);
    const other = await workspace(['https://other.example.com/hooks']);
    await recordInboundMessage(
      { workspaceId: other, from: { phone: '6281299990000', userId: null }, contactName: 'Sari', providerMessageId: `wamid.${randomUUID()}`, occurredAt: new Date().toISOString(), content: { kind: 'message', type: 'text', text: 'Halo', payload: null, media: null } },
      env.table,
    );
    // Five customers each forward a long text in Arabic script (a prayer, a chain message), under
    // WhatsApp's 65,536 characters: two bytes a character in UTF-8, as in the event's JSON.
    const text = 'بِسْمِ اللَّهِ الرَّحْمَٰنِ الرَّحِيمِ الْحَمْدُ لِلَّهِ رَبِّ الْعَالَمِينَ '.repeat(800);
    expect(text.length).toBeLessThanOrEqual(65_536);
    for (let i = 0; i < 5; i++) {
      const stored = await recordInboundMessage(
        {
          workspaceId: ws,
          from: { phone: `62812345678${i}`, userId: null },
          contactName: `Budi ${i}`,
          providerMessageId: `wamid.${randomUUID()}`,
          occurredAt: new Date(Date.now() - 1_000 * (5 - i)).toISOString(),
          content: { kind: 'message', type: 'text', text, payload: null, media: null },
        },
        env.table,
      );
      expect(stored).toBe(true);
    }
    // The table's stream hands the six outbox inserts to the publisher in one batch, the other workspace's first.
    const items = await env.table.scanAll();
    const outboxOf = (of: string) => items.filter((item) => item.entity === 'webhookOutbox' && item.workspaceId === of).map(toOutboxEvent);
    const outbox = outboxOf(ws);
    expect(outbox).toHaveLength(5);
    const found: StreamEvent[] = [...outboxOf(other), ...outbox].map((event) => ({ workspaceId: event.workspaceId, gated: false, event: () => event }));

    // Each event, one message per endpoint, is well within SQS's limit for one message; ten of them are not, together.
    expect(Math.max(...outbox.map((event) => Buffer.byteLength(event.payload)))).toBeLessThan(SQS_BATCH_BYTES / 4);
    expect(outbox.reduce((sum, event) => sum + 2 * Buffer.byteLength(event.payload), 0)).toBeGreaterThan(SQS_BATCH_BYTES);

    const published = await publishStreamEvents(found, env.table, env.queues);

    const refused = published.flatMap((outcome) => (outcome.status === 'rejected' ? [String((outcome.reason as Error).name ?? outcome.reason) + ': ' + String((outcome.reason as Error).message)] : []));
    expect(refused).toEqual([]);
    const queued = (await env.queues.receiveAll()) as EventDeliveryMessage[];
    expect(queued.filter((message) => message.workspaceId === other)).toHaveLength(1);
    expect(queued.filter((message) => message.workspaceId === ws)).toHaveLength(10);
  });

  // docs/api.md "Resend": `POST …/resend` with `since` "resends every event in the deliveries made at or
  // after since, oldest first, at most 500 per call, and answers 202". The way back for a receiver that
  // was down: its deliveries hold each event's POST body, long customer messages included.
  it('resends every event since a time, long customer messages included, rather than failing the call', async () => {
    const ws = `ws-${randomUUID().slice(0, 8)}`;
    const endpoint = await createWebhookEndpoint({ workspaceId: ws, url: 'https://crm.example.com/hooks', events: null, description: null }, new Date(), env.table);
    const text = 'بِسْمِ اللَّهِ الرَّحْمَٰنِ الرَّحِيمِ الْحَمْدُ لِلَّهِ رَبِّ الْعَالَمِينَ '.repeat(800);
    const since = new Date(Date.now() - 60 * 60_000);
    for (let i = 0; i < 10; i++) {
      const madeAt = new Date(since.getTime() + i * 60_000);
      const eventId = newEventId(madeAt);
      const payload = JSON.stringify({ id: eventId, type: 'message.received', timestamp: madeAt.toISOString(), data: { conversationId: randomUUID(), message: { text }, contact: { phone: `+62812345678${i}`, userId: null, name: 'Budi' } } });
      await writeOne(
        env.table,
        attemptRecordUpdate({ workspaceId: ws, endpointId: endpoint.id, eventId, type: 'message.received', payload, attempt: 11, attemptedAt: madeAt, statusCode: 503, error: null, state: 'failed', nextAttemptAt: null }),
      );
    }

    const resent = await resendEventsSince(ws, endpoint.id, since, env.table, env.queues).catch((error: Error) => `${error.name}: ${error.message}`);

    expect(resent).toEqual({ resent: 10, nextSince: null });
  });

  // SQS takes a message body of #x9 | #xA | #xD | #x20 to #xD7FF | #xE000 to #xFFFD | #x10000 to #x10FFFF
  // (https://docs.aws.amazon.com/AWSSimpleQueueService/latest/APIReference/API_SendMessage.html);
  // JSON.stringify leaves U+FFFE and U+FFFF as they are. The webhook keeps a customer's text as Meta
  // sends it (only a lone surrogate is replaced, docs/api.md#webhooks), so such a text is stored,
  // listed in its conversation, and its event must still go out.
  it('publishes message.received for a text holding U+FFFF, which the webhook stored', async () => {
    const ws = `ws-${randomUUID().slice(0, 8)}`;
    await saveWorkspace({ id: ws, name: ws, rupiahPerCredit: 150, settings: { whatsappPhoneNumberId: `num-${ws}` } }, new Date(), env.table);
    await createWebhookEndpoint({ workspaceId: ws, url: 'https://crm.example.com/hooks', events: null, description: null }, new Date(), env.table);
    const text = 'Pesanan A-1042 \uffff sudah sampai';
    expect(
      await recordInboundMessage(
        { workspaceId: ws, from: { phone: '6281234560000', userId: null }, contactName: 'Budi', providerMessageId: `wamid.${randomUUID()}`, occurredAt: new Date().toISOString(), content: { kind: 'message', type: 'text', text, payload: null, media: null } },
        env.table,
      ),
    ).toBe(true);
    const outbox = (await env.table.scanAll()).filter((item) => item.entity === 'webhookOutbox' && item.workspaceId === ws).map(toOutboxEvent);
    expect(outbox).toHaveLength(1);

    const published = await publishStreamEvents(outbox.map((event) => ({ workspaceId: ws, gated: false, event: () => event })), env.table, env.queues);

    expect(published.map((outcome) => (outcome.status === 'rejected' ? `${(outcome.reason as Error).name}: ${(outcome.reason as Error).message}` : 'published'))).toEqual(['published']);
    expect(((await env.queues.receiveAll()) as EventDeliveryMessage[]).filter((message) => message.workspaceId === ws)).toHaveLength(1);
  });
});
