import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { type ProviderError } from '../../../lambdas/domain/providers/provider';
import { whatsAppCloudProvider } from '../../../lambdas/domain/providers/whatsapp-cloud';

/** A local stand-in for the Graph API: answers what each test scripts, records what it got. */
let server: Server;
let baseUrl: string;
let answer: (request: IncomingMessage, body: string) => { status: number; body: unknown; delayMs?: number };
const received: { url: string; authorization: string | undefined; body: Record<string, unknown> }[] = [];

beforeAll(async () => {
  server = createServer((request, response) => {
    let body = '';
    request.on('data', (chunk: Buffer) => (body += chunk.toString()));
    request.on('end', () => {
      received.push({ url: request.url!, authorization: request.headers.authorization, body: JSON.parse(body) as Record<string, unknown> });
      const { status, body: json, delayMs = 0 } = answer(request, body);
      setTimeout(() => response.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(json)), delayMs);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v21.0`;
});
afterAll(() => new Promise((resolve) => server.close(resolve)));
beforeEach(() => (received.length = 0));

const provider = (timeoutMs = 1_000) =>
  whatsAppCloudProvider({ baseUrl, timeoutMs, credentials: () => Promise.resolve({ accessToken: 'token-1', appSecret: 's', verifyToken: 'v', phoneNumberId: '1111' }) });
const message = { dispatchId: '3f2b0c1e-5d6a-4b7c-8d9e-0f1a2b3c4d5e', to: '+6281234567890', templateName: 'order_shipped', language: 'id', bodyParameters: ['Budi', 'A-1'] };
const verdict = (promise: Promise<unknown>) => promise.then(() => undefined, (error: ProviderError) => [error.kind, error.code]);

describe('WhatsApp Cloud API provider', () => {
  it('posts the template with its body parameters and the dispatch id as callback data, with the bearer token', async () => {
    answer = () => ({ status: 200, body: { messaging_product: 'whatsapp', messages: [{ id: 'wamid.HBg' }] } });
    await expect(provider().send(message)).resolves.toEqual({ providerMessageId: 'wamid.HBg' });
    expect(received).toEqual([
      {
        url: '/v21.0/1111/messages',
        authorization: 'Bearer token-1',
        body: {
          messaging_product: 'whatsapp',
          recipient_type: 'individual',
          to: '6281234567890',
          type: 'template',
          biz_opaque_callback_data: message.dispatchId,
          template: {
            name: 'order_shipped',
            language: { code: 'id' },
            components: [{ type: 'body', parameters: [{ type: 'text', text: 'Budi' }, { type: 'text', text: 'A-1' }] }],
          },
        },
      },
    ]);
  });

  it('uses the workspace’s own number when it has one', async () => {
    answer = () => ({ status: 200, body: { messages: [{ id: 'wamid.2' }] } });
    await provider().send({ ...message, phoneNumberId: '2222' });
    expect(received[0]!.url).toBe('/v21.0/2222/messages');
  });

  it.each([
    [400, 131026, ['permanent', '131026']],
    [429, 130429, ['transient', '130429']],
    [400, 131056, ['transient', '131056']],
    [500, undefined, ['transient', 'http_500']],
  ])('maps HTTP %s code %s to %j', async (status, code, expected) => {
    answer = () => ({ status, body: code ? { error: { code, message: 'x' } } : {} });
    expect(await verdict(provider().send(message))).toEqual(expected);
  });

  it('calls a slow answer unknown: WhatsApp may have taken the message', async () => {
    answer = () => ({ status: 200, body: { messages: [{ id: 'late' }] }, delayMs: 300 });
    expect(await verdict(provider(100).send(message))).toEqual(['unknown', 'timeout']);
  });

  it('calls a refused connection transient: nothing was sent', async () => {
    const unreachable = whatsAppCloudProvider({ baseUrl: 'http://127.0.0.1:9/v21.0', timeoutMs: 1_000, credentials: () => Promise.resolve({ accessToken: 't', appSecret: 's', verifyToken: 'v', phoneNumberId: '1' }) });
    expect(await verdict(unreachable.send(message))).toEqual(['transient', 'network']);
  });
});
