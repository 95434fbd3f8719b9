import { DynamoDBDocumentClient, GetCommand, QueryCommand } from '@aws-sdk/lib-dynamodb';
import { mockClient } from 'aws-sdk-client-mock';
import { handler as deliver } from '../../../lambdas/handlers/deliver';
import { handler as listTemplates } from '../../../lambdas/handlers/list-templates';
import { handler as trackingDispatches } from '../../../lambdas/handlers/tracking-dispatches';
import { apiKeyItem, invokeRoute, lambdaContext, parseResult, resetContainerCaches, sqsEvent } from '../../../lib/testing';

const ddb = mockClient(DynamoDBDocumentClient);
const KEY = 'msk_test_key_00000001';

beforeEach(() => {
  ddb.reset();
  // A fresh container: the key, template and workspace lookups of the previous test are forgotten.
  resetContainerCaches();
});

it('lists templates for a key with templates:read', async () => {
  ddb.on(GetCommand).resolves({ Item: apiKeyItem(KEY, { scopes: ['templates:read'] }) });
  ddb.on(QueryCommand).resolves({ Items: [] });

  const { status, body } = parseResult(await invokeRoute('listTemplates', listTemplates, { apiKey: KEY }));

  expect(status).toBe(200);
  expect(body).toEqual({ items: [] });
});

it('refuses the same key once it is revoked (no cached lookup from the test before)', async () => {
  ddb.on(GetCommand).resolves({ Item: apiKeyItem(KEY, { scopes: ['templates:read'], status: 'revoked' }) });

  const { status, body } = parseResult(await invokeRoute('listTemplates', listTemplates, { apiKey: KEY }));

  expect(status).toBe(401);
  expect(body).toMatchObject({ error: 'unauthorized' });
});

it('invokes a streamed route with a response stream and collects its answer', async () => {
  ddb.on(GetCommand).resolves({ Item: apiKeyItem(KEY, { scopes: ['messages:read'] }) });

  const query = { startDate: '2026-11-01', endDate: '2026-11-30' }; // neither trackingTags nor scope
  const { status, body } = parseResult(await invokeRoute('trackingDispatches', trackingDispatches, { apiKey: KEY, query }));

  expect(status).toBe(422);
  expect(body).toMatchObject({ error: 'validation_failed' });
});

it('drops a queue message it can never read instead of retrying it', async () => {
  const event = sqsEvent([{ body: 'not json' }]);

  const result = await deliver(event, lambdaContext('deliver'));

  expect(result).toEqual({ batchItemFailures: [] });
});
