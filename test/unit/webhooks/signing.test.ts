import { Webhook } from 'standardwebhooks';
import { signedHeaders } from '../../../lambdas/domain/webhooks/signing';
import { newWebhookSecret } from '../../../lambdas/domain/webhooks/webhook-endpoint';

// The signer is ours (Node's HMAC); the standardwebhooks package, which receivers use, is the judge.
describe('Standard Webhooks signatures', () => {
  const at = new Date('2026-11-25T10:00:00.000Z');
  // Non-ASCII text, as a customer's inbound message carries it: signed as its UTF-8 bytes.
  const body = JSON.stringify({ id: 'evt_1', type: 'message.received', data: { text: 'Halo Budi 👋 — pesanan “A-1042” sudah dikirim' } });

  it('are the ones the standardwebhooks package makes, and verify with it', () => {
    const secret = newWebhookSecret();
    const headers = signedHeaders([{ secret, expiresAt: null }], 'evt_1', at, body);

    expect(headers).toEqual({ 'webhook-id': 'evt_1', 'webhook-timestamp': String(at.getTime() / 1000), 'webhook-signature': new Webhook(secret).sign('evt_1', at, body) });
    jest.useFakeTimers({ now: at });
    try {
      expect(new Webhook(secret).verify(body, headers)).toEqual(JSON.parse(body));
      expect(() => new Webhook(secret).verify(`${body} `, headers)).toThrow('No matching signature found');
    } finally {
      jest.useRealTimers();
    }
  });

  it('take a secret without its whsec_ prefix as the same key', () => {
    const secret = newWebhookSecret();
    const bare = secret.slice('whsec_'.length);
    expect(signedHeaders([{ secret: bare, expiresAt: null }], 'evt_2', at, body)).toEqual(signedHeaders([{ secret, expiresAt: null }], 'evt_2', at, body));
  });
});
