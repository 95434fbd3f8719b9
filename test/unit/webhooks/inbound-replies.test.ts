import type { ConversationMessage } from '../../../lambdas/domain/conversations/conversation-item';
import { readMessage, type ProviderInbound } from '../../../lambdas/domain/providers/whatsapp-webhook';
import { messageReceivedData } from '../../../lambdas/domain/webhooks/event-schemas';
import { messageReceivedEvent } from '../../../lambdas/domain/webhooks/webhook-event';

/** Customers' replies as Meta's messages webhook reference gives them, read, and told to the integration (`message.received`). */
const at = { from: '6281234560001', timestamp: '1767225610' };

function received(inbound: ProviderInbound) {
  if (inbound.content.kind !== 'message') throw new Error(`not a message: ${inbound.content.kind}`);
  const message: ConversationMessage = {
    workspaceId: 'ws-1',
    channel: 'whatsapp',
    contactPhone: '+6281234560001',
    contactName: 'Sheena Nelson',
    messageId: inbound.providerMessageId,
    direction: 'inbound',
    type: inbound.content.type,
    text: inbound.content.text,
    payload: inbound.content.payload,
    media: inbound.content.media,
    createdAt: inbound.occurredAt,
  };
  return messageReceivedData.parse(messageReceivedEvent(message, new Date()).data).message;
}

const read = (raw: unknown) => {
  const result = readMessage(raw);
  if (!result.ok) throw new Error(`skipped: ${result.reason} ${result.detail}`);
  return result.value;
};

describe('customers’ replies the integration acts on', () => {
  it('a completed WhatsApp Flow (interactive nfm_reply) is an interactive message whose payload is the customer’s answers, response_json as sent', () => {
    const responseJson = '{"flow_token": "tok-1", "optional_param1": "value1"}';
    const message = read({ ...at, id: 'wamid.F1', type: 'interactive', interactive: { type: 'nfm_reply', nfm_reply: { name: 'flow', body: 'Sent', response_json: responseJson } } });
    expect(received(message)).toMatchObject({ id: 'wamid.F1', type: 'interactive', text: 'Sent', payload: responseJson, media: null });
  });

  it('an order is a message of its own type: its items in words, and in Meta’s field names as JSON in the payload', () => {
    const order = { catalog_id: '194836987003835', text: 'Love these!', product_items: [{ product_retailer_id: 'di9ozbzfi4', quantity: 2, item_price: 30, currency: 'USD' }] };
    const message = read({ ...at, id: 'wamid.O1', type: 'order', order });
    const told = received(message);
    expect(told).toMatchObject({ type: 'order', text: 'Order: 2 × di9ozbzfi4 (30 USD). Love these!' });
    expect(JSON.parse(told.payload!)).toEqual({ catalog_id: order.catalog_id, product_items: order.product_items });
  });

  it('an order without items, or an interactive type we do not read, is still skipped', () => {
    expect(readMessage({ ...at, id: 'wamid.O2', type: 'order', order: { catalog_id: '1', product_items: [] } })).toMatchObject({ ok: false, reason: 'malformed_message' });
    expect(readMessage({ ...at, id: 'wamid.I2', type: 'interactive', interactive: { type: 'call_permission_reply', call_permission_reply: {} } })).toMatchObject({ ok: false, reason: 'unknown_message_type' });
  });
});
