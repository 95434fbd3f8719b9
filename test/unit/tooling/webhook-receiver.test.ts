import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
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

describe('npm run webhook-receiver, given a setting it cannot use', () => {
  const ROOT = join(__dirname, '..', '..', '..');
  const receive = (env: Record<string, string>) =>
    spawnSync(process.execPath, ['--import', 'tsx', join(ROOT, 'bin', 'webhook-receiver.ts')], { cwd: ROOT, encoding: 'utf8', env: { PATH: process.env.PATH, HOME: process.env.HOME, ...env }, timeout: 30_000 });

  it.each([
    [{}, 'npm run webhook-receiver: WEBHOOK_SECRET: set it to the endpoint’s whsec_… secret'],
    [{ WEBHOOK_SECRET: 'msk_live_not_a_webhook_secret', PORT: '4000.5' }, 'npm run webhook-receiver: WEBHOOK_SECRET: the endpoint’s whsec_… secret; PORT: a port number from 0 to 65535'],
  ])('%j stops it with one line naming each, the secret not echoed', (env, line) => {
    const run = receive(env);
    expect([run.status, run.stdout, run.stderr.trimEnd().split('\n')]).toEqual([1, '', [line]]);
  });
});
