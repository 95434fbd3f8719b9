import type { AddressInfo } from 'node:net';
import type { Server } from 'node:http';
import { createApiServer, type LoadedRoute } from '../../../lib/local/http-server';
import { routes } from '../../../lambdas/routes';

/**
 * Once the local runtime is stopping, its server takes nothing new that the stop would strand
 * (a send whose queue message dies with the emulator), and its health check stops saying ready; the
 * WhatsApp callbacks still land, since they bring the sandbox's last reports. The handlers are
 * stand-ins: what is under test is the server's gate.
 */
let stopping = false;
const invoked: string[] = [];
const route = (id: 'health' | 'sendMessage' | 'whatsappWebhook'): LoadedRoute => ({
  id,
  definition: routes[id],
  handler: () => (invoked.push(id), Promise.resolve({ statusCode: 200, headers: { 'content-type': 'application/json' }, body: '{"ok":true}' })),
});
let server: Server;
let base: string;
beforeAll(async () => {
  server = createApiServer([route('health'), route('sendMessage'), route('whatsappWebhook')], (error) => { throw error; }, { stopping: () => stopping });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(() => new Promise((resolve) => server.close(resolve)));

const call = async (method: string, path: string) => {
  const response = await fetch(`${base}${path}`, { method, ...(method === 'POST' ? { body: '{}', headers: { 'content-type': 'application/json' } } : {}) });
  return { status: response.status, body: (await response.json()) as Record<string, unknown> };
};

it('answers every route but WhatsApp’s callbacks 503 in the contract’s error body once stopping', async () => {
  expect((await call('GET', '/health')).status).toBe(200);
  stopping = true;
  expect(await call('GET', '/health')).toEqual({ status: 503, body: { error: 'service_unavailable', message: 'The local runtime is stopping', requestId: expect.any(String), success: false } });
  expect((await call('POST', '/v1/messages')).status).toBe(503);
  expect((await call('POST', '/webhooks/whatsapp')).status).toBe(200);
  expect(invoked).toEqual(['health', 'whatsappWebhook']);
});
