import { DynamoDBDocumentClient, GetCommand, QueryCommand } from '@aws-sdk/lib-dynamodb';
import { mockClient } from 'aws-sdk-client-mock';
import { handler as resendWebhookEvent } from '../../../lambdas/handlers/resend-webhook-event';
import { handler as resendWebhookEvents } from '../../../lambdas/handlers/resend-webhook-events';
import { handler as testWebhookEndpoint } from '../../../lambdas/handlers/test-webhook-endpoint';
import { apiKeyItem, invokeRoute, itemsByKey, parseResult, resetContainerCaches, workspaceItem } from '../../../lib/testing';

/**
 * An endpoint the workspace does not have is a plain 404 on its test event and resends, whatever
 * the function is given: the webhook queue is needed only to queue, once the endpoint is found.
 * The configuration reads WEBHOOK_QUEUE_URL on first use, so removing it here is what they see.
 */
delete process.env.WEBHOOK_QUEUE_URL;

const ddb = mockClient(DynamoDBDocumentClient);
const KEY = 'msk_test_key_00000001';
const id = 'whe_0123456789abcdef0123456789abcdef';

beforeEach(() => {
  ddb.reset();
  resetContainerCaches();
  ddb.on(GetCommand).callsFake(itemsByKey([apiKeyItem(KEY, { scopes: ['webhooks:manage'] }), workspaceItem()]));
  ddb.on(QueryCommand).resolves({ Items: [] });
});

it.each([
  ['testWebhookEndpoint', testWebhookEndpoint, { pathParameters: { id } }],
  ['resendWebhookEvent', resendWebhookEvent, { pathParameters: { id, eventId: 'evt_0123456789abcdef0123456789ab' } }],
  ['resendWebhookEvents', resendWebhookEvents, { pathParameters: { id }, body: { since: '2026-11-01T00:00:00.000Z' } }],
] as const)('%s answers 404 for an endpoint the workspace does not have', async (routeId, handler, input) => {
  const { status, body } = parseResult(await invokeRoute(routeId, handler, { apiKey: KEY, ...input }));
  expect([status, body.error]).toEqual([404, 'not_found']);
});
