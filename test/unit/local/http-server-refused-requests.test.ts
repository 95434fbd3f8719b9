import type { AddressInfo } from 'node:net';
import type { Server } from 'node:http';
import { createApiServer, type LoadedRoute } from '../../../lib/local/http-server';
import { routes } from '../../../lambdas/routes';

/**
 * docs/api.md#errors: "Every error, including those API Gateway answers itself, has this body and
 * no other properties", and every response carries X-Request-Id. A request Node refuses before the
 * local server sees it (headers over its 16 KB: the contract's 20 report tags of 256 characters,
 * percent-encoded, make a URL of 30 000) was Node's bare 431, with no body.
 */
const handled: string[] = [];
const summary: LoadedRoute = {
  id: 'trackingSummary',
  definition: routes.trackingSummary,
  handler: (event) => {
    handled.push(event.path);
    return Promise.resolve({ statusCode: 200, headers: { 'content-type': 'application/json', 'x-request-id': event.requestContext.requestId }, body: '{"items":[]}' });
  },
};
let server: Server;
let base: string;
beforeAll(async () => {
  server = createApiServer([summary], () => undefined);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(() => new Promise((resolve) => server.close(resolve)));

it('answers a request whose head is over Node’s limit in the contract’s error body, with an X-Request-Id', async () => {
  const tags = Array.from({ length: 20 }, (_, i): [string, string] => ['trackingTags', `${i}`.padEnd(256, 'é')]);
  const query = new URLSearchParams([['startDate', '2026-11-01'], ['endDate', '2026-11-30'], ...tags]).toString();
  const response = await fetch(`${base}/v1/messages/tracking-report/summary?${query}`, { headers: { 'x-api-key': 'k' } });
  const requestId = response.headers.get('x-request-id');

  expect([response.status, response.headers.get('content-type')]).toEqual([431, 'application/json']);
  expect(requestId).toEqual(expect.any(String));
  expect(await response.json()).toEqual({ success: false, error: 'bad_request', message: expect.stringContaining('larger than'), requestId });
  expect(handled).toEqual([]);
});
