import { encodeBody, encodings } from '../support/encodings';
import { call, SECOND, SECOND_SEED, startTestRuntime } from '../support/local-runtime';
import { contractFetch } from '../support/openapi-contract';
import { pathOf, routes } from '../../lambdas/routes';

const KEY = SECOND.fullKey;
const NEIGHBOUR = SECOND.neighbourKey;
const TEMPLATE_ID = SECOND.templateId;
const VERSION_ID = SECOND.versionId;
let runtime: Awaited<ReturnType<typeof startTestRuntime>>;

beforeAll(async () => {
  runtime = await startTestRuntime({ seedPath: SECOND_SEED });
});
afterAll(() => runtime.stop());

const sendRequest = { channel: 'whatsapp', to: '0812-3456-7890', content: { type: 'template', templateId: TEMPLATE_ID, variables: { name: 'Sari' } }, trackingTags: ['launch'] };

async function post(path: string, body: Record<string, unknown>, encoding: (typeof encodings)[number], apiKey = KEY, extra: Record<string, string> = {}) {
  const encoded = encodeBody(body, encoding);
  const response = await contractFetch(`${runtime.url}${path}`, { method: 'POST', headers: { 'X-API-Key': apiKey, ...encoded.headers, ...extra }, body: encoded.body });
  return { status: response.status, headers: response.headers, body: JSON.parse(await response.text()) as Record<string, unknown> };
}

describe('templates over HTTP', () => {
  it('reads one template and previews its version', async () => {
    const detail = await call(runtime.url, 'GET', pathOf(routes.getTemplate, { templateId: TEMPLATE_ID }), { apiKey: KEY });
    expect([detail.status, detail.body.id, detail.body.displayName]).toEqual([200, TEMPLATE_ID, 'Second hello']);

    const preview = await call(runtime.url, 'POST', pathOf(routes.previewTemplate, { templateId: VERSION_ID }), { apiKey: KEY, body: { variables: [{ name: 'name', value: 'Sari' }] } });
    expect([preview.status, preview.body]).toEqual([200, { templateVersionId: VERSION_ID, preview: 'Hai Sari' }]);
  });

  it('hides a template from another workspace behind the same 404 as a missing one', async () => {
    const foreign = await call(runtime.url, 'GET', pathOf(routes.getTemplate, { templateId: TEMPLATE_ID }), { apiKey: NEIGHBOUR });
    const missing = await call(runtime.url, 'GET', '/v1/message-templates/00000000-0000-4000-8000-000000000000', { apiKey: NEIGHBOUR });
    expect([foreign.status, foreign.body.error, foreign.body.message]).toEqual([missing.status, missing.body.error, missing.body.message]);
    expect(foreign.status).toBe(404);
  });
});

describe.each(encodings)('POST /v1/messages as %s, then GET the statusUrl', (encoding) => {
  it('queues the message and reads it back at its statusUrl', async () => {
    const sent = await post('/v1/messages', sendRequest, encoding);
    expect(sent.status).toBe(202);
    expect(Object.keys(sent.body).sort()).toEqual(['dispatchId', 'status', 'statusUrl']);
    expect(sent.body.statusUrl).toBe(`${runtime.url}/v1/messages/${sent.body.dispatchId as string}`);

    const response = await contractFetch(sent.body.statusUrl as string, { headers: { 'X-API-Key': KEY } });
    const status = JSON.parse(await response.text()) as Record<string, unknown>;
    expect(response.status).toBe(200);
    expect(status).toMatchObject({ dispatchId: sent.body.dispatchId, channel: 'whatsapp', to: '+6281234567890', templateId: TEMPLATE_ID, trackingTags: ['launch'] });
    expect(['queued', 'processing', 'sent', 'delivered']).toContain(status.status);
  });
});

describe('send rules over HTTP', () => {
  it('replays an Idempotency-Key request with the original 202 body, whatever the encoding', async () => {
    const first = await post('/v1/messages', sendRequest, 'json', KEY, { 'Idempotency-Key': 'e2e-replay-1' });
    const again = await post('/v1/messages', sendRequest, 'multipart', KEY, { 'Idempotency-Key': 'e2e-replay-1' });
    expect([first.status, again.status]).toEqual([202, 202]);
    expect(again.body).toEqual(first.body);
    expect(again.headers.get('idempotent-replayed')).toBe('true');
  });

  it('hides a dispatch from another workspace behind the same 404 as a missing one', async () => {
    const sent = await post('/v1/messages', sendRequest, 'json');
    const foreign = await call(runtime.url, 'GET', pathOf(routes.getMessage, { dispatchId: sent.body.dispatchId as string }), { apiKey: NEIGHBOUR });
    expect([foreign.status, foreign.body.error]).toEqual([404, 'not_found']);
  });

  it('refuses a template of another workspace as not found, and unsupported variants as 422', async () => {
    const foreignTemplate = await post('/v1/messages', sendRequest, 'json', NEIGHBOUR);
    expect([foreignTemplate.status, foreignTemplate.body.error]).toEqual([422, 'template_not_found']);
    const text = await post('/v1/messages', { channel: 'whatsapp', to: '081234567890', content: { type: 'text', text: 'hi' } }, 'form');
    expect([text.status, text.body.error]).toEqual([422, 'unsupported_channel_content']);
  });

  it('answers a malformed JSON body and an unsupported Content-Type with 422 in the error body', async () => {
    const malformed = await call(runtime.url, 'POST', '/v1/messages', { apiKey: KEY, body: '{"channel":' });
    const plainText = await call(runtime.url, 'POST', '/v1/messages', { apiKey: KEY, body: 'hello', headers: { 'Content-Type': 'text/plain' } });
    expect([malformed.status, malformed.body.error, plainText.status, plainText.body.error]).toEqual([422, 'validation_failed', 422, 'validation_failed']);
  });

  it('needs messages:send to send and messages:read to read', async () => {
    const readOnly = await post('/v1/messages', sendRequest, 'json', 'msk_test_second_read_0002');
    expect([readOnly.status, readOnly.body.error]).toEqual([403, 'forbidden']);
  });
});
