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
const post = async (signature?: string, raw = body) =>
  parseResult(
    await receive(
      routeEvent('whatsappWebhook', { body: raw, headers: { 'Content-Type': 'application/json', ...(signature ? { 'X-Hub-Signature-256': signature } : {}) } }),
      lambdaContext('whatsappWebhook'),
    ),
  );
const signed = (raw: string) => signWebhookBody(raw, 'test-app-secret');

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

  // The signature is checked before any parser: an unsigned body is never read, whatever it holds.
  it.each([
    ['not JSON at all', '{"object": "whatsapp_business_account", "entry": ['],
    ['JSON of another shape', JSON.stringify({ hello: 'world' })],
  ])('answers an unsigned body that is %s with 401, not 422', async (_, raw) => {
    const { status, body: answer } = await post(undefined, raw);
    expect(answer).toEqual({ success: false, error: 'unauthorized', message: 'The X-Hub-Signature-256 header does not match the body', requestId: expect.any(String) });
    expect(status).toBe(401);
  });

  it('answers a wrongly signed body of the right shape with 401', async () => {
    const { status, body: answer } = await post(`sha256=${'0'.repeat(64)}`);
    expect([status, answer.error]).toEqual([401, 'unauthorized']);
    expect(ddb.calls()).toHaveLength(0);
  });

  it('answers a correctly signed malformed body with 422, as the body parser does on every route', async () => {
    const raw = '{"object": "whatsapp_business_account", "entry": [';
    const { status, body: answer } = await post(signed(raw), raw);
    expect([status, answer]).toEqual([422, { success: false, error: 'validation_failed', message: 'Invalid or malformed JSON was provided', requestId: expect.any(String) }]);
    expect(ddb.calls()).toHaveLength(0);
  });

  it('answers a correctly signed body of another shape with 422 naming the field, through the route\'s body schema', async () => {
    const raw = JSON.stringify({ object: 'instagram', entry: [] });
    const { status, body: answer } = await post(signed(raw), raw);
    expect([status, answer.error]).toEqual([422, 'validation_failed']);
    expect(answer.message).toMatch(/^body\.object: /);
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
