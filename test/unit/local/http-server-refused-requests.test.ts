import { contractFetch } from '../../support/openapi-contract';
import { useSummaryRouteServer } from '../../support/summary-route-server';

/**
 * docs/api.md#errors: "Every error, including those API Gateway answers itself, has this body and
 * no other properties", and every response carries X-Request-Id. A request Node refuses before the
 * local server sees it (headers over its 16 KB: the contract's 20 report tags of 256 characters,
 * percent-encoded, make a URL of 30 000) was Node's bare 431, with no body. It is the 400
 * `bad_request` every operation documents for a request that cannot be read: 431 is Node's, and
 * no status the deployed API is known to answer (decision 223).
 */
const server = useSummaryRouteServer();

it('answers a request whose head is over Node’s limit 400 in the contract’s error body, as documented, with an X-Request-Id', async () => {
  const tags = Array.from({ length: 20 }, (_, i): [string, string] => ['trackingTags', `${i}`.padEnd(256, 'é')]);
  const query = new URLSearchParams([['startDate', '2026-11-01'], ['endDate', '2026-11-30'], ...tags]).toString();
  const response = await contractFetch(`${server.base()}/v1/messages/tracking-report/summary?${query}`, { headers: { 'x-api-key': 'k' } });
  const requestId = response.headers.get('x-request-id');

  expect([response.status, response.headers.get('content-type')]).toEqual([400, 'application/json']);
  expect(requestId).toEqual(expect.any(String));
  expect(await response.json()).toEqual({ success: false, error: 'bad_request', message: expect.stringContaining('larger than'), requestId });
  expect(server.handed).toEqual([]);
});
