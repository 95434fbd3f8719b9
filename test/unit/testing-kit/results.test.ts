import { DynamoDBDocumentClient, GetCommand, TransactWriteCommand } from '@aws-sdk/lib-dynamodb';
import { mockClient } from 'aws-sdk-client-mock';
import { handler as deleteWebhookEndpoint } from '../../../lambdas/handlers/delete-webhook-endpoint';
import { handler as trackingDispatches } from '../../../lambdas/handlers/tracking-dispatches';
import { handler as verifyWebhook } from '../../../lambdas/handlers/whatsapp-webhook-verify';
import { apiKeyItem, invokeRoute, lambdaContext, parseResult, resetContainerCaches, routeEvent } from '../../../lib/testing';

const ddb = mockClient(DynamoDBDocumentClient);
const KEY = 'msk_test_key_00000001';

beforeEach(() => {
  ddb.reset();
  resetContainerCaches();
});

describe('parseResult', () => {
  it('reads a 204 as text: an empty body, the headers lower-cased', async () => {
    ddb.on(GetCommand).resolves({ Item: apiKeyItem(KEY, { scopes: ['webhooks:manage'] }) });
    ddb.on(TransactWriteCommand).resolves({});
    const result = await invokeRoute('deleteWebhookEndpoint', deleteWebhookEndpoint, { apiKey: KEY, pathParameters: { id: `whe_${'0'.repeat(32)}` }, requestId: 'r-1' });

    expect(parseResult(result, 'text')).toEqual({ status: 204, headers: { 'x-request-id': 'r-1' }, body: '' });
    expect(() => parseResult(result)).toThrow("parseResult: the 204 answer's body is empty, not JSON; read it with parseResult(result, 'text')");
  });

  it('reads the verification handshake’s plain-text challenge as the string it is', async () => {
    const query = { 'hub.mode': 'subscribe', 'hub.verify_token': process.env.WHATSAPP_VERIFY_TOKEN!, 'hub.challenge': '1158201444' };
    const result = await invokeRoute('whatsappWebhookVerify', verifyWebhook, { query });

    expect(parseResult(result, 'text')).toMatchObject({ status: 200, body: '1158201444' });
    expect(() => parseResult(result)).toThrow(/body is text\/plain.*not JSON/);
  });
});

it('types the streamed route as Lambda response streaming calls it', () => {
  const event = routeEvent('trackingDispatches', { apiKey: KEY });
  // @ts-expect-error (event, context) leaves it no response stream to write to
  const misuse = () => trackingDispatches(event, lambdaContext('trackingDispatches'));
  expect(misuse).toBeInstanceOf(Function);
});
