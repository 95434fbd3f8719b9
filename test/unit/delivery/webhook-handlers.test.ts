import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { mockClient } from 'aws-sdk-client-mock';
import { handler as receive } from '../../../lambdas/handlers/whatsapp-webhook';
import { handler as verify } from '../../../lambdas/handlers/whatsapp-webhook-verify';
import { signWebhookBody, statusWebhook } from '../../../lambdas/domain/providers/whatsapp-webhook';
import { lambdaContext, parseResult, routeEvent } from '../../support/events';

const ddb = mockClient(DynamoDBDocumentClient);
beforeEach(() => ddb.reset());

const body = JSON.stringify(
  statusWebhook('1111', [{ id: 'wamid.1', status: 'delivered', timestamp: '1767225600', biz_opaque_callback_data: '3f2b0c1e-5d6a-4b7c-8d9e-0f1a2b3c4d5e' }]),
);
const post = async (signature?: string) =>
  parseResult(
    await receive(
      routeEvent('whatsappWebhook', { body, headers: { 'Content-Type': 'application/json', ...(signature ? { 'X-Hub-Signature-256': signature } : {}) } }),
      lambdaContext('whatsappWebhook'),
    ),
  );

describe('POST /webhooks/whatsapp', () => {
  it.each([
    ['no signature', undefined],
    ['a signature made with another secret', signWebhookBody(body, 'another-secret')],
    ['a signature of another body', signWebhookBody(`${body} `, 'test-app-secret')],
  ])('answers %s with 401 and reads or writes nothing', async (_, signature) => {
    const { status, body: answer } = await post(signature);
    expect([status, answer.error]).toEqual([401, 'unauthorized']);
    expect(ddb.calls()).toHaveLength(0);
  });
});

describe('GET /webhooks/whatsapp', () => {
  const handshake = async (query: Record<string, string>) => {
    const result = await verify(routeEvent('whatsappWebhookVerify', { query }), lambdaContext('whatsappWebhookVerify'));
    return { status: result.statusCode, body: result.body, contentType: result.headers?.['content-type'] };
  };

  it('echoes the challenge as plain text when the verify token matches', async () => {
    expect(await handshake({ 'hub.mode': 'subscribe', 'hub.verify_token': 'test-verify-token', 'hub.challenge': '1158201444' })).toEqual({
      status: 200,
      body: '1158201444',
      contentType: 'text/plain; charset=utf-8',
    });
  });

  it('refuses a wrong token with 403 and a wrong mode with 422', async () => {
    expect((await handshake({ 'hub.mode': 'subscribe', 'hub.verify_token': 'guess', 'hub.challenge': '1' })).status).toBe(403);
    expect((await handshake({ 'hub.mode': 'unsubscribe', 'hub.verify_token': 'test-verify-token', 'hub.challenge': '1' })).status).toBe(422);
  });
});
