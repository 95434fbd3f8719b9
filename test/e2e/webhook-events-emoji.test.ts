import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Webhook } from 'standardwebhooks';
import { pathOf, routes } from '../../lambdas/routes';
import { call, SECOND, SECOND_SEED, startTestRuntime } from '../support/local-runtime';
import { inboundTextWebhook, postSignedWebhook } from '../support/webhooks';

/**
 * docs/api.md#webhook-events over the local runtime (README "Receiving events": `npm start`, then
 * `npm run webhook-receiver`): each customer message stored in its conversation is POSTed to the
 * endpoints that take `message.received`, "so an event is never lost". Indonesian customers write
 * emoji in most messages ("Terima kasih 🙏"); an emoji is a character outside the Basic
 * Multilingual Plane, which SQS takes (#x10000 to #x10FFFF) and the local runtime's queue must too.
 */
const OWNER = SECOND.fullKey;

let runtime: Awaited<ReturnType<typeof startTestRuntime>>;
let server: Server;
const received: { id: string; type: string; data: { message: { text: string } } }[] = [];
let secret = '';

beforeAll(async () => {
  runtime = await startTestRuntime({ seedPath: SECOND_SEED });
  server = createServer((request, response) => {
    let body = '';
    request.on('data', (chunk: Buffer) => (body += chunk.toString()));
    request.on('end', () => {
      received.push(new Webhook(secret).verify(body, request.headers as Record<string, string>) as (typeof received)[number]);
      response.writeHead(204).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
}, 60_000);
afterAll(async () => {
  await runtime.stop();
  await new Promise((resolve) => server.close(resolve));
});

async function receivedText(text: string, withinMs: number) {
  const deadline = Date.now() + withinMs;
  while (Date.now() < deadline) {
    const event = received.find((one) => one.type === 'message.received' && one.data.message.text === text);
    if (event) return event;
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
  return undefined;
}

describe('message.received over the local runtime', () => {
  it('posts a customer’s message with an emoji to the endpoint, as it posts one without', async () => {
    const { port } = server.address() as AddressInfo;
    const created = await call(runtime.url, 'POST', pathOf(routes.createWebhookEndpoint), { apiKey: OWNER, body: { url: `http://127.0.0.1:${port}/hooks`, events: ['message.received'] } });
    expect(created.status).toBe(201);
    secret = String(created.body.secret);

    const plain = inboundTextWebhook({ phoneNumberId: 'second-number', from: '6281234562222', name: 'Sari', id: 'wamid.emoji.plain', text: 'Terima kasih, sudah sampai' });
    expect((await postSignedWebhook(runtime.url, plain)).status).toBe(200);
    expect(await receivedText('Terima kasih, sudah sampai', 20_000)).toBeDefined();

    const withEmoji = inboundTextWebhook({ phoneNumberId: 'second-number', from: '6281234562222', name: 'Sari', id: 'wamid.emoji.1', text: 'Terima kasih 🙏' });
    expect((await postSignedWebhook(runtime.url, withEmoji)).status).toBe(200);
    // The message is in its conversation…
    const list = await call(runtime.url, 'GET', `/v1/conversations?phone=${encodeURIComponent('+6281234562222')}`, { apiKey: OWNER });
    const conversationId = (list.body.items as { id: string }[])[0]!.id;
    const history = await call(runtime.url, 'GET', pathOf(routes.conversationMessages, { conversationId }), { apiKey: OWNER });
    expect(history.body.items).toEqual(expect.arrayContaining([expect.objectContaining({ direction: 'inbound', text: 'Terima kasih 🙏' })]));
    // …and its event reaches the endpoint as the first one's did.
    expect(await receivedText('Terima kasih 🙏', 20_000)).toMatchObject({ type: 'message.received', data: { message: { text: 'Terima kasih 🙏' } } });
  }, 90_000);
});
