import { applyProviderReports } from '../../lambdas/domain/delivery/provider-reports';
import { conversationHistory, listConversations } from '../../lambdas/domain/conversations/read-conversations';
import { sendTemplateMessage } from '../../lambdas/domain/messages/send-message';
import type { WebhookPayload } from '../../lambdas/domain/providers/whatsapp-webhook';
import { sendCommand, sendingWorkspace } from '../support/send-commands';
import { useTableAndQueues } from '../support/sqs';
import { whatsAppEnvelope } from '../support/webhooks';

/**
 * Decision 204 placed a customer's message at the last millisecond of its whole second (found by the
 * skeptic review of it); it now stands where in its second it reached us. The other order in one second: the customer writes (WhatsApp stamps 10:00:00), the webhook reaches us, and
 * an integration's auto-reply to `message.received` is sent at 10:00:00.700 by our clock. Our send
 * answers the message we already had: it must be the conversation's last message, listed above it.
 */
const env = useTableAndQueues();
afterEach(() => env.queues.receiveAll());

/** A customer's text message as Meta's webhook reference documents it. */
const metaText = (phoneNumberId: string, id: string, timestamp: string, body: string): WebhookPayload =>
  whatsAppEnvelope(
    'messages',
    {
      messaging_product: 'whatsapp',
      metadata: { display_phone_number: '15550783881', phone_number_id: phoneNumberId },
      contacts: [{ profile: { name: 'Budi' }, wa_id: '6281234567890' }],
      messages: [{ from: '6281234567890', id, timestamp, type: 'text', text: { body } }],
    },
    '102290129340398',
  );

it('keeps our auto-reply, sent after the customer’s message in its second, as the last message', async () => {
  const ws = await sendingWorkspace(env.table);
  // The customer writes at 10:00:00.100; WhatsApp stamps 10:00:00 (1790848800) and we receive it at .300.
  const received = new Date('2026-10-01T10:00:00.300Z');
  expect(await applyProviderReports(metaText(`sandbox:${ws}`, `wamid.HBgLNjI4MTIzNDU2Nzg5MBUCABIYIDR.${ws}`, '1790848800', 'Kode OTP saya?'), env.table, received)).toMatchObject({ inbound: 1 });
  // The integration answers the message.received event with a template, at 10:00:00.700.
  await sendTemplateMessage(sendCommand(ws, { now: new Date('2026-10-01T10:00:00.700Z') }), { store: env.table, queue: env.queues });

  const conversation = (await listConversations(ws, { phone: '081234567890', limit: 1 }, env.table)).items[0]!;
  const history = await conversationHistory(ws, conversation.id, { limit: 20 }, env.table);
  expect({ last: conversation.lastMessageDirection, newestFirst: history.items.map((message) => message.direction) }).toEqual({
    last: 'outbound',
    newestFirst: ['outbound', 'inbound'],
  });
});
