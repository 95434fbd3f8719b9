import { contractFetch } from '../../support/openapi-contract';
import { useSummaryRouteServer } from '../../support/summary-route-server';

/**
 * docs/api.md: a form body's percent escape that is not UTF-8 (`%FF`) is 422, "rather than sent on",
 * and the local server refuses such an escape in the path (400, "not valid percent-encoded UTF-8").
 * A query's names and values are percent-encoded the same way: `trackingTags=%FF` names no tag the
 * client could have written as text, and reached the route as a tag U+FFFD (`�`) it never sent.
 * The refusal is one docs/openapi.json documents for the operation (decision 223).
 */
const server = useSummaryRouteServer();
const queries = () => server.handed.map((event) => event.multiValueQueryStringParameters);

const summaryUrl = (query: string) => `${server.base()}/v1/messages/tracking-report/summary?startDate=2026-11-01&endDate=2026-11-30&${query}`;
const summaryOf = (query: string) => fetch(summaryUrl(query), { headers: { 'x-api-key': 'k' } });

it.each([
  ['a value whose escape is not UTF-8', 'trackingTags=%FF'],
  ['a name whose escape is not UTF-8', 'tracking%FFTags=a'],
  ['an escape cut short', 'trackingTags=%E0%A4'],
  ['a percent sign that is no escape', 'trackingTags=100%'],
])('answers %s 400 in the contract’s error body, as docs/openapi.json documents it, rather than handing the route U+FFFD', async (_, query) => {
  const response = await contractFetch(summaryUrl(query), { headers: { 'x-api-key': 'k' } });
  const requestId = response.headers.get('x-request-id');
  expect([response.status, response.headers.get('content-type')]).toEqual([400, 'application/json']);
  expect(await response.json()).toEqual({ success: false, error: 'bad_request', message: 'The request query string is not valid percent-encoded UTF-8', requestId });
  expect(queries()).toEqual([]);
});

it('hands the route a query it can read as sent: escapes decoded, `+` a space, repeated names kept', async () => {
  const response = await summaryOf('trackingTags=promo+n%C3%B3v&trackingTags=%25vip&trackingTags[]=a%2Bb');
  expect(response.status).toBe(200);
  expect(queries()).toEqual([{ startDate: ['2026-11-01'], endDate: ['2026-11-30'], trackingTags: ['promo nóv', '%vip'], 'trackingTags[]': ['a+b'] }]);
});
