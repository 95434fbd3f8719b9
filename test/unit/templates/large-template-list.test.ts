import { DynamoDBDocumentClient, GetCommand, QueryCommand } from '@aws-sdk/lib-dynamodb';
import { mockClient } from 'aws-sdk-client-mock';
import { hashApiKey } from '../../../lambdas/domain/api-keys/api-key-secret';
import { handler as listTemplates } from '../../../lambdas/handlers/list-templates';
import { keys } from '../../../lambdas/shared/table';
import { BUFFERED_RESPONSE_LIMIT_BYTES } from '../../../lib/local/lambda-response-limit';
import { resetContainerCaches } from '../../../lib/testing';
import { templateItem } from '../../../lib/testing/send-items';
import { apiKeyItem } from '../../support/api-keys';
import { invokeRoute, parseResult } from '../../support/events';
import { template } from '../../support/send-fixtures';

/**
 * The template list has no paging in the contract, and a template keeps its versions (up to 90,
 * bodies up to 4 096 characters; synced ones keep their SUPERSEDED versions): 20 such templates are
 * 7 MB, past Lambda's 6 MB buffered limit, where API Gateway would answer 502. The route streams
 * (decision 173), so the list comes back whole; `invokeRoute` fails a buffered answer over the
 * limit as Lambda does.
 */
const ddb = mockClient(DynamoDBDocumentClient);
const TABLE = process.env.TABLE_NAME!;
const KEY = 'msk_test_large_template_list';
const WS = 'ws-many-templates';

beforeEach(() => {
  ddb.reset();
  resetContainerCaches();
  ddb.on(GetCommand, { TableName: TABLE, Key: keys.apiKey(hashApiKey(KEY)) }).resolves({ Item: apiKeyItem(KEY, { workspaceId: WS, scopes: ['templates:read'] }) });
});

it('GET message-templates answers a list over 6 MB whole: 20 templates of 90 versions with 4 000-character bodies', async () => {
  const id = (t: number, v = 0) => `7b0c5c3e-${String(t).padStart(4, '0')}-4000-8000-${String(v).padStart(12, '0')}`;
  const stored = Array.from({ length: 20 }, (_, t) =>
    templateItem({
      ...template,
      workspaceId: WS,
      id: id(t),
      displayName: `Template ${String(t).padStart(2, '0')}`,
      versions: Array.from({ length: 90 }, (_, v) => ({ ...template.versions[0]!, id: id(t, v + 1), version: v + 1, body: `${v} ${'b'.repeat(4_000)}` })),
    }),
  );
  ddb.on(QueryCommand).resolves({ Items: stored });

  const result = await invokeRoute('listTemplates', listTemplates, { apiKey: KEY });
  const { status, headers, body } = parseResult(result);

  expect(status).toBe(200);
  expect(headers['content-type']).toMatch(/^application\/json/);
  expect(Buffer.byteLength(result.body)).toBeGreaterThan(BUFFERED_RESPONSE_LIMIT_BYTES);
  const items = body.items as { id: string; displayName: string; versions: { id: string; customerPreview: string }[] }[];
  expect(items.map((item) => item.displayName)).toEqual(Array.from({ length: 20 }, (_, t) => `Template ${String(t).padStart(2, '0')}`));
  expect(items.every((item) => item.versions.length === 90)).toBe(true);
  expect(items[19]!.versions[89]).toMatchObject({ id: id(19, 90), customerPreview: `89 ${'b'.repeat(4_000)}` });
  expect(Object.keys(body)).toEqual(['items']);
});
