import { randomUUID } from 'node:crypto';
import { DynamoDBDocumentClient, GetCommand, QueryCommand } from '@aws-sdk/lib-dynamodb';
import { mockClient } from 'aws-sdk-client-mock';
import { hashApiKey } from '../../../lambdas/domain/api-keys/api-key-secret';
import { handler as deliveryStatusHandler } from '../../../lambdas/handlers/delivery-status';
import { handler as summaryHandler } from '../../../lambdas/handlers/tracking-summary';
import { storedWorkspaceItem } from '../../../lambdas/domain/workspaces/workspace-repository';
import { handler as tagsHandler } from '../../../lambdas/handlers/tracking-tags';
import { keys } from '../../../lambdas/shared/table';
import { BUFFERED_RESPONSE_LIMIT_BYTES } from '../../../lib/local/lambda-response-limit';
import { apiKeyItem } from '../../support/api-keys';
import { resetContainerCaches } from '../../../lib/testing';
import { invokeRoute, parseResult } from '../../support/events';

/**
 * Reads whose answers the contract lets pass Lambda's 6 MB buffered limit, where API Gateway would
 * answer 502: tag discovery at `limit` up to 100 000 with tags up to 256 characters, delivery-status
 * for 500 phones over a long period (decision 170), and the summary's 20 tags each used with
 * thousands of templates (decision 229). They stream, so they come back whole; `invokeRoute` fails a
 * buffered answer over the limit as Lambda does.
 */
const ddb = mockClient(DynamoDBDocumentClient);
const TABLE = process.env.TABLE_NAME!;
const KEY = 'msk_test_large_reads_01';

beforeEach(() => {
  ddb.reset();
  resetContainerCaches();
  ddb.on(GetCommand, { TableName: TABLE, Key: keys.apiKey(hashApiKey(KEY)) }).resolves({ Item: apiKeyItem(KEY, { workspaceId: 'ws-big', scopes: ['messages:read'] }) });
  ddb.on(QueryCommand).resolves({ Items: [] });
});

it('GET tracking-tags answers a page over 6 MB whole: 22 000 tags of 256 characters', async () => {
  const count = 22_000;
  const tag = (i: number) => `${String(i).padStart(6, '0')}${'t'.repeat(250)}`;
  // One day's rollups: tag i was used i+1 times, so the page is in reverse order of i.
  ddb.on(QueryCommand, { ExpressionAttributeValues: { ':pk': 'WS#ws-big#RD#2026-03-01' } }).resolves({
    Items: Array.from({ length: count }, (_, i) => ({ trackingTag: tag(i), dispatchCount: i + 1 })),
  });

  const result = await invokeRoute('trackingTags', tagsHandler, { apiKey: KEY, query: { startDate: '2026-03-01', endDate: '2026-03-01', limit: '100000' } });
  const { status, headers, body } = parseResult(result);

  expect(status).toBe(200);
  expect(headers['content-type']).toMatch(/^application\/json/);
  expect(Buffer.byteLength(result.body)).toBeGreaterThan(BUFFERED_RESPONSE_LIMIT_BYTES);
  const items = body.items as { trackingTag: string; dispatchCount: number }[];
  expect(items).toHaveLength(count);
  expect(items[0]).toEqual({ trackingTag: tag(count - 1), dispatchCount: count });
  expect(items.at(-1)).toEqual({ trackingTag: tag(0), dispatchCount: 1 });
  expect(body.pagination).toEqual({ page: 1, limit: 100000, totalItems: count, totalPages: 1 });
  expect(Object.keys(body)).toEqual(['items', 'pagination']);
});

it('POST delivery-status answers over 6 MB whole: 500 phones with 150 events each, in the order given', async () => {
  const phones = Array.from({ length: 500 }, (_, i) => `+62812${String(i).padStart(8, '0')}`);
  const events = Array.from({ length: 150 }, (_, i) => ({
    dispatchId: randomUUID(),
    status: 'DELIVERED',
    occurredAt: new Date(Date.UTC(2026, 0, 1) + i * 60_000).toISOString(),
  }));
  // Every phone's own events partition answers the same events; the older index answers none.
  ddb.on(QueryCommand, { IndexName: undefined }).resolves({ Items: events });
  ddb.on(QueryCommand, { IndexName: 'gsi1' }).resolves({ Items: [] });

  const result = await invokeRoute('deliveryStatus', deliveryStatusHandler, { apiKey: KEY, body: { phones, startDate: '2026-01-01', endDate: '2026-12-31' } });
  const { status, body } = parseResult(result);

  expect(status).toBe(200);
  expect(Buffer.byteLength(result.body)).toBeGreaterThan(BUFFERED_RESPONSE_LIMIT_BYTES);
  const items = body.items as { phone: string; events: unknown[] }[];
  expect(items.map((item) => item.phone)).toEqual(phones);
  expect(items.every((item) => item.events.length === events.length)).toBe(true);
  expect(items[499]!.events[0]).toEqual(events[0]);
  expect(Object.keys(body)).toEqual(['items']);
});

it('GET tracking-report/summary answers over 6 MB whole: 20 tags each used with 1500 templates of 150-character names', async () => {
  // A synced template's name is `name (language)`, up to 530 characters; a WhatsApp Business
  // Account holds up to 6000 templates, and `page`/`limit` page only the tag rows.
  ddb.on(GetCommand, { TableName: TABLE, Key: keys.workspace('ws-big') }).resolves({
    Item: storedWorkspaceItem({ id: 'ws-big', name: 'ws-big', rupiahPerCredit: 150, settings: {}, createdAt: '2026-01-01T00:00:00.000Z', updatedAt: '2026-01-01T00:00:00.000Z' } as never),
  });
  const templates = Array.from({ length: 1500 }, (_, i) => ({
    templateId: `7b0c5c3e-0000-4000-8000-${String(i).padStart(12, '0')}`,
    templateName: `${'order_update_'.repeat(11)}${String(i).padStart(4, '0')} (id)`.slice(0, 150),
  }));
  // Every tag's rollups of the day answer the same templates.
  ddb.on(QueryCommand).resolves({ Items: templates.map((t) => ({ ...t, day: '2026-03-01', dispatchCount: 1, credits: 1, amountRupiah: 150 })) });
  const tags = Array.from({ length: 20 }, (_, i) => `tag-${i}`);

  const result = await invokeRoute('trackingSummary', summaryHandler, { apiKey: KEY, query: { startDate: '2026-03-01', endDate: '2026-03-01', trackingTags: tags } });
  const { status, body } = parseResult(result);

  expect(status).toBe(200);
  expect(Buffer.byteLength(result.body)).toBeGreaterThan(BUFFERED_RESPONSE_LIMIT_BYTES);
  const items = body.items as { templates: { templateId: string }[] }[];
  expect(items.map((row) => row.templates.length)).toEqual(tags.map(() => 1500));
  expect(body.period).toEqual({ startDate: '2026-03-01', endDate: '2026-03-01', timezone: 'Asia/Jakarta' });
  expect(body.rupiahPerCredit).toBe(150);
  expect(Object.keys(body)).toEqual(['period', 'rupiahPerCredit', 'items']);
});
