import { DynamoDBDocumentClient, GetCommand, QueryCommand } from '@aws-sdk/lib-dynamodb';
import { mockClient } from 'aws-sdk-client-mock';
import { hashApiKey } from '../../../lambdas/domain/api-keys/api-key-secret';
import { handler as summaryHandler } from '../../../lambdas/handlers/tracking-summary';
import { handler as tagsHandler } from '../../../lambdas/handlers/tracking-tags';
import { handler as dispatchesHandler } from '../../../lambdas/handlers/tracking-dispatches';
import { keys } from '../../../lambdas/shared/table';
import { apiKeyItem } from '../../support/api-keys';
import { resetContainerCaches } from '../../../lib/testing';
import { invokeRoute, parseResult, routeEvent } from '../../support/events';

const ddb = mockClient(DynamoDBDocumentClient);
const TABLE = process.env.TABLE_NAME!;
const KEY = 'msk_test_reports_000001';

beforeEach(() => {
  ddb.reset();
  resetContainerCaches();
  ddb.on(GetCommand, { TableName: TABLE, Key: keys.apiKey(hashApiKey(KEY)) }).resolves({ Item: apiKeyItem(KEY, { workspaceId: 'ws-r', scopes: ['messages:read'] }) });
  ddb.on(GetCommand, { TableName: TABLE, Key: keys.workspace('ws-r') }).resolves({
    Item: { id: 'ws-r', name: 'R', rupiahPerCredit: 150, settings: { sendsPerMinute: 600, dedupe: 'none', provider: 'sandbox' }, createdAt: '2026-01-01T00:00:00.000Z', updatedAt: '2026-01-01T00:00:00.000Z' },
  });
  ddb.on(QueryCommand).resolves({ Items: [] });
});

const tags = async (query: Record<string, string | string[]>) => parseResult(await invokeRoute('trackingTags', tagsHandler, routeEvent('trackingTags', { apiKey: KEY, query })));
const summary = async (query: Record<string, string | string[]>) => parseResult(await invokeRoute('trackingSummary', summaryHandler, routeEvent('trackingSummary', { apiKey: KEY, query })));
const dispatches = async (query: Record<string, string | string[]>) =>
  parseResult(await invokeRoute('trackingDispatches', dispatchesHandler, routeEvent('trackingDispatches', { apiKey: KEY, query })));
const period = { startDate: '2026-03-01', endDate: '2026-03-31' };

describe('report query rules (docs/api.md#reports)', () => {
  it.each([
    [{ ...period, startDate: '2026-3-01' }, 'query.startDate: must be a date as YYYY-MM-DD'],
    [{ ...period, endDate: '2026-02-30' }, 'query.endDate: is not a calendar date'],
    [{ startDate: '2026-04-01', endDate: '2026-03-31' }, 'query.startDate: startDate must not be after endDate'],
    [{ startDate: '2025-01-01', endDate: '2026-01-02' }, 'query.endDate: the period may span at most 366 days'],
    [{ ...period, page: '0' }, 'query.page: must be a whole number ≥ 1'],
    [{ ...period, page: '1.5' }, 'query.page: must be a whole number ≥ 1'],
    [{ ...period, page: ['1', '2'] }, 'query.page: must be a whole number ≥ 1'],
    [{ ...period, limit: '100001' }, 'query.limit: must be a whole number from 1 to 100000'],
    [{ ...period, limit: 'many' }, 'query.limit: must be a whole number from 1 to 100000'],
    [{ ...period, prefix: 'x'.repeat(257) }, 'query.prefix: Too big: expected string to have <=256 characters'],
    [{ endDate: '2026-03-31' }, 'query.startDate: Invalid input: expected string, received undefined'],
  ])('GET tracking-tags with %j is 422: %s', async (query, message) => {
    const { status, body } = await tags(query);
    expect([status, body.error, body.message]).toEqual([422, 'validation_failed', message]);
    expect(ddb.commandCalls(QueryCommand)).toHaveLength(0);
  });

  // A misspelt filter (`tracking_tags`, `prefx`) would otherwise answer the unfiltered report, which looks like a right answer.
  it.each([
    ['tracking-tags', () => tags({ ...period, prefx: 'promo' }), 'query: Unrecognized key: "prefx"'],
    ['summary', () => summary({ ...period, trackingTags: 'promo', tracking_tag: 'vip' }), 'query: Unrecognized key: "tracking_tag"'],
    ['dispatches', () => dispatches({ ...period, scope: 'WORKSPACE', tracking_tags: 'promo' }), 'query: Unrecognized key: "tracking_tags"'],
  ])('GET %s with a parameter it does not know is 422 naming it', async (_route, request, message) => {
    const { status, body } = await request();
    expect([status, body.error, body.message]).toEqual([422, 'validation_failed', message]);
    expect(ddb.commandCalls(QueryCommand)).toHaveLength(0);
  });

  // A number written other than in decimal digits is no whole number a client meant.
  it.each(['0x10', '0b11', '1.0', '1e3', ' 1', '+1', ''])('GET tracking-tags with page=%j is 422, not read as a number', async (written) => {
    const { status, body } = await tags({ ...period, page: written });
    expect([status, body.message]).toEqual([422, 'query.page: must be a whole number ≥ 1']);
  });

  // The contract sets no maximum page: one far past the last is an empty page, whatever its digits.
  it.each(['1000000000000000', '9007199254740991'])('GET tracking-tags with page=%s (past the last page) is 200 with no items', async (page) => {
    const { status, body } = await tags({ ...period, page });
    expect([status, body]).toEqual([200, { items: [], pagination: { page: Number(page), limit: 50, totalItems: 0, totalPages: 0 } }]);
  });

  it('reads an empty prefix as none, as a client filling the URL from an empty filter sends it: every tag', async () => {
    const { status, body } = await tags({ ...period, prefix: '' });
    expect([status, body.pagination]).toEqual([200, { page: 1, limit: 50, totalItems: 0, totalPages: 0 }]);
    const queries = ddb.commandCalls(QueryCommand).map((call) => String(call.args[0].input.KeyConditionExpression));
    expect([queries.length, queries.filter((condition) => condition.includes('begins_with'))]).toEqual([31, []]);
  });

  it('accepts the limits at their edges: page 1, limit 100000, a 366-day period, a 256-character prefix', async () => {
    const { status, body } = await tags({ startDate: '2024-01-01', endDate: '2024-12-31', page: '1', limit: '100000', prefix: 'x'.repeat(256) });
    expect(status).toBe(200);
    expect(body).toStrictEqual({ items: [], pagination: { page: 1, limit: 100000, totalItems: 0, totalPages: 0 } });
    expect(ddb.commandCalls(QueryCommand)).toHaveLength(366);
  });

  it.each([
    [{ ...period }, 'query.trackingTags: Invalid input: expected array, received undefined'],
    [{ ...period, trackingTags: Array.from({ length: 21 }, (_, i) => `t${i}`) }, 'query.trackingTags: Too big: expected array to have <=20 items'],
    [{ ...period, trackingTags: ['x'.repeat(257)] }, 'query.trackingTags.0: Too big: expected string to have <=256 characters'],
    [{ ...period, trackingTags: ['  '] }, 'query.trackingTags.0: Too small: expected string to have >=1 characters'],
  ])('GET summary with %j is 422: %s', async (query, message) => {
    const { status, body } = await summary(query);
    expect([status, body.message]).toEqual([422, message]);
  });

  it('answers the summary with period, rate and one row per requested tag, repeated or single', async () => {
    ddb.on(QueryCommand, { ExpressionAttributeValues: { ':pk': 'WS#ws-r#RT#promo', ':from': '2026-03-01', ':to': '2026-03-31#~' } }).resolves({
      Items: [{ templateId: 'tpl-1', templateName: 'Hello', day: '2026-03-10', dispatchCount: 3, credits: 6, amountRupiah: 900 }],
    });
    const single = await summary({ ...period, trackingTags: 'promo' });
    expect(single.body).toStrictEqual({
      period: { startDate: '2026-03-01', endDate: '2026-03-31', timezone: 'Asia/Jakarta' },
      rupiahPerCredit: 150,
      items: [{ trackingTag: 'promo', dispatchCount: 3, credits: 6, amountRupiah: 900, templates: [{ templateId: 'tpl-1', templateName: 'Hello', dispatchCount: 3, credits: 6, amountRupiah: 900 }] }],
    });
    const repeated = await summary({ ...period, trackingTags: ['promo', 'none'] });
    expect((repeated.body.items as { trackingTag: string }[]).map((item) => item.trackingTag)).toEqual(['promo', 'none']);
  });

  it('reads the bracket form trackingTags[]=…, as many HTTP clients write an array, as the repeated parameter', async () => {
    const tagsOf = (result: Awaited<ReturnType<typeof summary>>) => [result.status, (result.body.items as { trackingTag: string }[] | undefined)?.map((item) => item.trackingTag)];
    expect(tagsOf(await summary({ ...period, 'trackingTags[]': ['promo', 'none'] }))).toEqual([200, ['promo', 'none']]);
    expect(tagsOf(await summary({ ...period, 'trackingTags[]': 'promo' }))).toEqual([200, ['promo']]);
    expect(tagsOf(await summary({ ...period, trackingTags: 'promo', 'trackingTags[]': 'none' }))).toEqual([200, ['promo', 'none']]);
  });

  it.each([
    [{ ...period }, 'query.trackingTags: give trackingTags (with match) or scope=WORKSPACE'],
    [{ ...period, scope: 'WORKSPACE', trackingTags: 'a' }, 'query.scope: give trackingTags or scope=WORKSPACE, not both'],
    [{ ...period, scope: 'WORKSPACE', match: 'ALL' }, 'query.match: match goes with trackingTags, not with scope'],
    [{ ...period, scope: 'ACCOUNT' }, 'query.scope: the only scope is WORKSPACE'],
    [{ ...period, trackingTags: 'a', match: 'SOME' }, 'query.match: match is ANY or ALL'],
  ])('GET dispatches with %j is 422: %s', async (query, message) => {
    const { status, body } = await dispatches(query);
    expect([status, body.message]).toEqual([422, message]);
  });

  it('answers the dispatch list with period, rate, rows and pagination (defaults: page 1, limit 50, match ANY)', async () => {
    const { status, body } = await dispatches({ ...period, scope: 'WORKSPACE' });
    expect(status).toBe(200);
    expect(body).toStrictEqual({
      period: { startDate: '2026-03-01', endDate: '2026-03-31', timezone: 'Asia/Jakarta' },
      rupiahPerCredit: 150,
      items: [],
      pagination: { page: 1, limit: 50, totalItems: 0, totalPages: 0 },
    });
  });
});
