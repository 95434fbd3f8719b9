import { call, SECOND, SECOND_SEED, startTestRuntime, waitForStatus } from '../support/local-runtime';
import { inboundTextWebhook, postSignedWebhook } from '../support/webhooks';
import { pathOf, routes } from '../../lambdas/routes';

const KEY = SECOND.fullKey;
let runtime: Awaited<ReturnType<typeof startTestRuntime>>;

beforeAll(async () => {
  runtime = await startTestRuntime({ seedPath: SECOND_SEED });
});
afterAll(() => runtime.stop());

describe('conversations over HTTP', () => {
  it('shows a send, its delivery and the customer’s reply in the history', async () => {
    const sent = await call(runtime.url, 'POST', '/v1/messages', {
      apiKey: KEY,
      body: { channel: 'whatsapp', to: '0812-7777-1234', contactName: 'Rina', content: { type: 'template', templateId: '5e0c0000-0000-4000-8000-000000000001', variables: { name: 'Rina' } } },
    });
    const dispatchId = sent.body.dispatchId as string;
    await waitForStatus(runtime.url, KEY, dispatchId, ['delivered']);
    const reply = inboundTextWebhook({
      phoneNumberId: 'second-number',
      from: '6281277771234',
      name: 'Rina',
      id: 'wamid.reply.1',
      text: 'Sudah sampai, terima kasih',
      at: new Date(Date.now() + 1_000),
    });
    const webhook = await postSignedWebhook(runtime.url, reply);
    expect(webhook.status).toBe(200);

    const list = await call(runtime.url, 'GET', `/v1/conversations?phone=${encodeURIComponent('+62 812-7777-1234')}`, { apiKey: KEY });
    const conversation = (list.body.items as { id: string }[])[0]!;
    expect(list.body).toMatchObject({ items: [{ contactPhone: '+6281277771234', contactName: 'Rina', inboundCount: 1, outboundCount: 1 }], nextCursor: null });

    const history = await call(runtime.url, 'GET', pathOf(routes.conversationMessages, { conversationId: conversation.id }), { apiKey: KEY });
    expect(history.body.items).toEqual([
      expect.objectContaining({ direction: 'inbound', text: 'Sudah sampai, terima kasih', dispatchId: null, status: null }),
      expect.objectContaining({ direction: 'outbound', text: 'Hai Rina', dispatchId, status: 'delivered' }),
    ]);

    const foreign = await call(runtime.url, 'GET', pathOf(routes.getConversation, { conversationId: conversation.id }), { apiKey: 'msk_test_neighbour_0001' });
    const missing = await call(runtime.url, 'GET', '/v1/conversations/00000000-0000-4000-8000-000000000000', { apiKey: 'msk_test_neighbour_0001' });
    expect([foreign.status, foreign.body.message]).toEqual([missing.status, missing.body.message]);
    expect(foreign.status).toBe(404);
    const tooMany = await call(runtime.url, 'GET', `${pathOf(routes.conversationMessages, { conversationId: conversation.id })}?limit=101`, { apiKey: KEY });
    expect([tooMany.status, tooMany.body.message]).toEqual([422, 'query.limit: must be a whole number from 1 to 100']);
  }, 20_000);
});
