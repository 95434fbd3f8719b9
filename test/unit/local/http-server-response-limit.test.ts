import type { AddressInfo } from 'node:net';
import { request, type Server } from 'node:http';
import { Readable } from 'node:stream';
import type { HttpMetadataSink } from '../../../lambdas/http/lambda-streaming';
import { createApiServer, type LoadedRoute } from '../../../lib/local/http-server';
import { BUFFERED_RESPONSE_LIMIT_BYTES } from '../../../lib/local/lambda-response-limit';
import { routes } from '../../../lambdas/routes';
import { responseProblem } from '../../support/openapi-contract';

/**
 * The local server holds a buffered route to Lambda's 6 MB response limit as the deployed stack
 * does (API Gateway answers the refused payload 502), so a body that would outgrow it fails locally
 * first; a streamed route's body has no such limit. The handlers are stand-ins: what is under test
 * is the server.
 */
let bodyBytes = 0;
const errors: unknown[] = [];
const json = (bytes: number) => `{"items":"${'x'.repeat(bytes - '{"items":""}'.length)}"}`;
const buffered: LoadedRoute = {
  id: 'sendCheck',
  definition: routes.sendCheck,
  handler: () => Promise.resolve({ statusCode: 200, headers: { 'content-type': 'application/json' }, body: json(bodyBytes) }),
};
const streamed: LoadedRoute = {
  id: 'trackingDispatches',
  definition: routes.trackingDispatches,
  handler: (async (_event: unknown, stream: HttpMetadataSink) => {
    stream.setHttpMetadata?.({ statusCode: 200, headers: { 'content-type': 'application/json' } });
    await new Promise((resolve, reject) => Readable.from([json(bodyBytes)]).pipe(stream).on('finish', resolve).on('error', reject));
  }) as unknown as LoadedRoute['handler'],
};
let server: Server;
let base: string;
beforeAll(async () => {
  server = createApiServer([buffered, streamed], (error) => errors.push(error));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(() => new Promise((resolve) => server.close(resolve)));
beforeEach(() => (errors.length = 0));

const get = async (path: string) => {
  const response = await fetch(`${base}${path}`);
  return { status: response.status, text: await response.text() };
};

it('answers a buffered body that fits Lambda’s limit as it is', async () => {
  bodyBytes = BUFFERED_RESPONSE_LIMIT_BYTES - 1024;
  const { status, text } = await get('/v1/messages/send-check');
  expect(status).toBe(200);
  expect(text).toHaveLength(bodyBytes);
  expect(errors).toEqual([]);
});

it('answers a buffered body over Lambda’s 6 MB limit 502, as API Gateway does, and reports it', async () => {
  bodyBytes = BUFFERED_RESPONSE_LIMIT_BYTES;
  const { status, text } = await get('/v1/messages/send-check');
  expect(status).toBe(502);
  expect(JSON.parse(text)).toEqual({ success: false, error: 'internal_error', message: 'Internal server error', requestId: expect.any(String) });
  expect(String(errors[0])).toMatch(/^Error: sendCheck: Function\.ResponseSizeTooLarge: response payload size \(\d+ bytes\) exceeded maximum allowed payload size \(6291556 bytes\)/);
});

it('streams a body of any size on a streaming route', async () => {
  bodyBytes = 2 * BUFFERED_RESPONSE_LIMIT_BYTES;
  const { status, text } = await get('/v1/messages/tracking-report/dispatches');
  expect(status).toBe(200);
  expect(text).toHaveLength(bodyBytes);
  expect(errors).toEqual([]);
});

// Lambda's synchronous invoke payload is at most 6 MB of event; API Gateway takes bodies up to 10 MB
// but cannot invoke the function with more, and answers 413 (the signed webhook reads any size).
it('answers a request whose event passes Lambda’s 6 MB invoke payload 413, without invoking the function', async () => {
  const webhookInvoked: string[] = [];
  const webhook: LoadedRoute = { id: 'whatsappWebhook', definition: routes.whatsappWebhook, handler: () => (webhookInvoked.push('invoked'), Promise.resolve({ statusCode: 200, headers: {}, body: '' })) };
  const webhookServer = createApiServer([webhook], (error) => errors.push(error));
  await new Promise<void>((resolve) => webhookServer.listen(0, '127.0.0.1', resolve));
  try {
    const url = `http://127.0.0.1:${(webhookServer.address() as AddressInfo).port}/webhooks/whatsapp`;
    const post = (bytes: number) => fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ padding: 'x'.repeat(bytes) }) });
    const over = await post(7_000_000);
    expect([over.status, ((await over.json()) as { error: string }).error, webhookInvoked]).toEqual([413, 'payload_too_large', []]);
    expect((await post(1_000_000)).status).toBe(200);
    expect(webhookInvoked).toEqual(['invoked']);
  } finally {
    await new Promise((resolve) => webhookServer.close(resolve));
  }
});

// A route that reads no body is refused one over the limit too, before its function runs: the 413
// is documented on every operation, not only those with a request body (decision 223).
it('answers a route that reads no body 413 for a body past the invoke payload, as docs/openapi.json documents it', async () => {
  const body = JSON.stringify({ padding: 'x'.repeat(7_000_000) });
  const answer = await new Promise<{ status: number; contentType: string | null; text: string }>((resolve, reject) => {
    const sent = request(`${base}/v1/messages/send-check`, { method: 'GET', headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) } }, (response) => {
      const chunks: Buffer[] = [];
      response.on('data', (chunk: Buffer) => chunks.push(chunk));
      response.on('end', () => resolve({ status: response.statusCode!, contentType: response.headers['content-type'] ?? null, text: Buffer.concat(chunks).toString('utf8') }));
    });
    sent.on('error', reject);
    sent.end(body);
  });
  expect([answer.status, JSON.parse(answer.text).error]).toEqual([413, 'payload_too_large']);
  expect(responseProblem('GET', `${base}/v1/messages/send-check`, answer.status, answer.contentType, answer.text) ?? 'as documented').toBe('as documented');
});
