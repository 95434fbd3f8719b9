import { DynamoDBDocumentClient, GetCommand, QueryCommand } from '@aws-sdk/lib-dynamodb';
import { mockClient } from 'aws-sdk-client-mock';
import { handler as conversationMessages } from '../../../lambdas/handlers/conversation-messages';
import { handler as listConversations } from '../../../lambdas/handlers/list-conversations';
import { hashApiKey } from '../../../lambdas/domain/api-keys/api-key-secret';
import { keys } from '../../../lambdas/shared/table';
import { apiKeyItem, invokeRoute, parseResult, resetContainerCaches } from '../../../lib/testing';

/**
 * A misspelt `phone` (`phon=0812…`) would otherwise list every conversation of the workspace, which
 * looks like an answer: a query parameter a route does not know is 422 naming it, as a body's is.
 */
const ddb = mockClient(DynamoDBDocumentClient);
const KEY = 'msk_test_conversations_01';

beforeEach(() => {
  ddb.reset();
  resetContainerCaches();
  ddb.on(GetCommand).resolves({});
  ddb.on(GetCommand, { Key: keys.apiKey(hashApiKey(KEY)) }).resolves({ Item: apiKeyItem(KEY, { scopes: ['messages:read'] }) });
  ddb.on(QueryCommand).resolves({ Items: [] });
});

it.each([
  ['listConversations', () => invokeRoute('listConversations', listConversations, { apiKey: KEY, query: { phon: '081234567890' } })],
  ['conversationMessages', () => invokeRoute('conversationMessages', conversationMessages, { apiKey: KEY, pathParameters: { conversationId: '7b0c5c3e-0000-4000-8000-00000000c001' }, query: { limt: '5' } })],
])('%s answers a query parameter it does not know 422 naming it, reading nothing', async (_route, request) => {
  const { status, body } = parseResult(await request());
  expect([status, body.error]).toEqual([422, 'validation_failed']);
  expect(body.message).toMatch(/^query: Unrecognized key: "(phon|limt)"$/);
  expect(ddb.commandCalls(QueryCommand)).toHaveLength(0);
});

it('still lists with the parameters it knows', async () => {
  const { status, body } = parseResult(await invokeRoute('listConversations', listConversations, { apiKey: KEY, query: { phone: '081234567890', limit: '5' } }));
  expect([status, body]).toEqual([200, { items: [], nextCursor: null }]);
});

// Built by JSON.parse so the name is an own property, as the event's are: in an object literal
// `__proto__` would set the prototype instead.
it.each([
  ['__proto__', '{"__proto__":"x"}'],
  ['__proto__[]', '{"__proto__[]":["a","b"]}'],
])('answers a parameter named %s 422 naming it, as any other it does not know', async (_name, query) => {
  const { status, body } = parseResult(await invokeRoute('listConversations', listConversations, { apiKey: KEY, query: JSON.parse(query) }));
  expect([status, body.error, body.message]).toEqual([422, 'validation_failed', 'query: Unrecognized key: "__proto__"']);
  expect(ddb.commandCalls(QueryCommand)).toHaveLength(0);
});
