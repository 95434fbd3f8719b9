import { Webhook } from 'standardwebhooks';
import { newWebhookSecret } from '../../../lambdas/domain/webhooks/webhook-endpoint';
import { signedHeaders } from '../../../lambdas/domain/webhooks/signing';
import { startWebhookReceiver, type ReceivedEvent } from '../../../lib/webhook-receiver';

describe('the README’s webhook receiver (npm run webhook-receiver)', () => {
  it('prints an event our signing produced once, and refuses one it cannot verify', async () => {
    const secret = newWebhookSecret();
    const printed: ReceivedEvent[] = [];
    const server = await startWebhookReceiver({ secret, port: 0, onEvent: (event) => printed.push(event) });
    const event = { id: 'evt_019aa0c4d2000123456789abcdef', type: 'webhook.test', timestamp: new Date().toISOString(), data: { message: 'hello' } };
    const body = JSON.stringify(event);
    const post = (headers: Record<string, string>) => fetch(server.url, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body });
    try {
      expect((await post(signedHeaders([{ secret, expiresAt: null }], event.id, new Date(), body))).status).toBe(204);
      expect((await post(signedHeaders([{ secret, expiresAt: null }], event.id, new Date(), body))).status).toBe(204);
      expect((await post(signedHeaders([{ secret: newWebhookSecret(), expiresAt: null }], event.id, new Date(), body))).status).toBe(401);
      expect((await post({ 'webhook-id': event.id, 'webhook-timestamp': '1', 'webhook-signature': new Webhook(secret).sign(event.id, new Date(1000), body) })).status).toBe(401);
      expect(printed).toEqual([event]);
    } finally {
      await new Promise((resolve) => server.close(resolve));
    }
  });
});
