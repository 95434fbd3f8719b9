import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { mockClient } from 'aws-sdk-client-mock';
import { handler } from '../../../lambdas/handlers/whatsapp-callbacks';
import { signWebhookBody, statusWebhook } from '../../../lambdas/domain/providers/whatsapp-webhook';
import { functionUrlEvent, type FunctionUrlRequest } from '../../../lib/local/function-url-event';
import { lambdaContext } from '../../support/events';

/** The webhook on a function URL (webhookFrontDoor=functionUrl): payload 2.0 in, the REST routes' answers out. */
const ddb = mockClient(DynamoDBDocumentClient);
beforeEach(() => ddb.reset());

const call = async (request: FunctionUrlRequest) => {
  const event = functionUrlEvent(request);
  const result = await handler(event, lambdaContext('whatsappCallbacks'));
  return { event, status: result.statusCode, headers: result.headers ?? {}, body: result.body };
};
const body = JSON.stringify(
  statusWebhook('1111', [{ id: 'wamid.1', status: 'delivered', timestamp: '1767225600', biz_opaque_callback_data: '3f2b0c1e-5d6a-4b7c-8d9e-0f1a2b3c4d5e' }]),
);
const post = (headers: Record<string, string>, options: Partial<FunctionUrlRequest> = {}) =>
  call({ method: 'POST', path: '/webhooks/whatsapp', headers: { 'Content-Type': 'application/json', ...headers }, body, ...options });

describe('GET /webhooks/whatsapp on the function URL', () => {
  it('echoes the challenge as plain text when the verify token matches, under the URL’s request id', async () => {
    const { event, status, headers, body: answer } = await call({ method: 'GET', path: '/webhooks/whatsapp', rawQueryString: 'hub.mode=subscribe&hub.challenge=1158201444&hub.verify_token=test-verify-token' });
    expect([status, answer, headers['content-type']]).toEqual([200, '1158201444', 'text/plain; charset=utf-8']);
    expect(headers['x-request-id']).toBe(event.requestContext.requestId);
  });

  it('refuses a wrong token with 403, and a parameter given twice with 422 as the REST route does', async () => {
    const wrongToken = await call({ method: 'GET', path: '/webhooks/whatsapp', rawQueryString: 'hub.mode=subscribe&hub.challenge=1&hub.verify_token=guess' });
    expect([wrongToken.status, JSON.parse(wrongToken.body).error]).toEqual([403, 'forbidden']);
    // The URL's own query map would read "1,2" as one challenge; the raw query keeps both.
    const twice = await call({ method: 'GET', path: '/webhooks/whatsapp', rawQueryString: 'hub.mode=subscribe&hub.challenge=1&hub.challenge=2&hub.verify_token=test-verify-token' });
    expect([twice.status, JSON.parse(twice.body).error]).toEqual([422, 'validation_failed']);
  });
});

describe('POST /webhooks/whatsapp on the function URL', () => {
  it('answers an unsigned body with 401 in the contract’s error body, reading and writing nothing', async () => {
    const { event, status, body: answer } = await post({});
    expect([status, JSON.parse(answer)]).toEqual([
      401,
      { success: false, error: 'unauthorized', message: 'The X-Hub-Signature-256 header does not match the body', requestId: event.requestContext.requestId },
    ]);
    expect(ddb.calls()).toHaveLength(0);
  });

  it.each([
    ['as text', false],
    ['base64-encoded by Lambda', true],
  ])('checks the signature on the body exactly as sent (%s) and applies the report', async (_, base64) => {
    ddb.onAnyCommand().resolves({});
    const { status, body: answer } = await post({ 'X-Hub-Signature-256': signWebhookBody(body, 'test-app-secret') }, { base64 });
    expect([status, answer]).toEqual([200, JSON.stringify({ success: true })]);
    // The report named a dispatch, which was looked up.
    expect(ddb.calls().length).toBeGreaterThan(0);
  });

  // Decoded leniently before the check, bytes that are not UTF-8 became U+FFFD: a body Meta signed holding U+FFFD
  // (EF BF BD) could be sent with one 0xFF byte in its place, other bytes, and pass.
  it('checks the signature on the bytes as sent: other bytes that read as the same text are 401, reading nothing', async () => {
    const signedText = JSON.stringify(statusWebhook('1111', [{ id: 'wamid.\uFFFD', status: 'delivered', timestamp: '1767225600' }]));
    const signed = Buffer.from(signedText, 'utf8');
    const at = signed.indexOf(Buffer.from('\uFFFD'));
    const altered = Buffer.concat([signed.subarray(0, at), Buffer.from([0xff]), signed.subarray(at + 3)]);

    const { status, body: answer } = await post({ 'X-Hub-Signature-256': signWebhookBody(signedText, 'test-app-secret') }, { body: altered, base64: true });

    expect([status, JSON.parse(answer).error]).toEqual([401, 'unauthorized']);
    expect(ddb.calls()).toHaveLength(0);
  });
});

describe('anything else on the function URL', () => {
  it.each([
    ['PUT', '/webhooks/whatsapp'],
    ['DELETE', '/webhooks/whatsapp'],
    ['GET', '/'],
    ['POST', '/v1/messages'],
    ['POST', '/webhooks/whatsapp/extra'],
  ])('answers %s %s with 404 in the contract’s error body, calling nothing', async (method, path) => {
    const { event, status, headers, body: answer } = await call({ method, path, headers: { 'X-Hub-Signature-256': signWebhookBody(body, 'test-app-secret') }, body });
    expect([status, headers['content-type'], JSON.parse(answer)]).toEqual([
      404,
      'application/json; charset=utf-8',
      { success: false, error: 'not_found', message: `No route matches ${method} ${path}`, requestId: event.requestContext.requestId },
    ]);
    expect(ddb.calls()).toHaveLength(0);
  });
});
