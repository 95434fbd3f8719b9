import { DynamoDBDocumentClient, GetCommand, QueryCommand } from '@aws-sdk/lib-dynamodb';
import { mockClient } from 'aws-sdk-client-mock';
import { clearApiKeyCache } from '../../../lambdas/domain/api-keys/authenticate';
import { hashApiKey } from '../../../lambdas/domain/api-keys/api-key-secret';
import { handler } from '../../../lambdas/handlers/list-templates';
import { config } from '../../../lambdas/shared/config';
import { keys } from '../../../lambdas/shared/table';
import { apiKeyItem } from '../../support/api-keys';
import { invokeRoute, parseResult } from '../../support/events';

/**
 * README ("Admin CLI"), docs/api.md and docs/security.md: a container trusts a key lookup for
 * `API_KEY_CACHE_TTL_SECONDS`, default 30, capped at 60. A larger value is the cap, not a function
 * that answers every authenticated request 500. The configuration reads the variable on first
 * use, so setting it here, before any request, is what a cold start sees.
 */
process.env.API_KEY_CACHE_TTL_SECONDS = '120';

const ddb = mockClient(DynamoDBDocumentClient);
const KEY = 'msk_test_AAAAbbbbCCCCdddd0001';

beforeEach(() => {
  ddb.reset();
  clearApiKeyCache();
  ddb.on(QueryCommand).resolves({ Items: [] });
});

it('caps a key-cache TTL above 60 s at 60 s instead of failing every authenticated request', async () => {
  ddb.on(GetCommand, { TableName: process.env.TABLE_NAME!, Key: keys.apiKey(hashApiKey(KEY)) }).resolves({ Item: apiKeyItem(KEY, { scopes: ['templates:read'] }) });
  const { status, body } = parseResult(await invokeRoute('listTemplates', handler, { apiKey: KEY }));
  expect([status, body]).toEqual([200, { items: [] }]);
  expect(config.API_KEY_CACHE_TTL_SECONDS).toBe(60);
});
