import type { ProviderError } from '../../../lambdas/domain/providers/provider';
import { whatsAppCloudProvider } from '../../../lambdas/domain/providers/whatsapp-cloud';
import { startGraphStub, type GraphStub } from '../../support/graph-stub';

/**
 * Error answers as Meta documents them: the WhatsApp Cloud API error codes page ("build your app's
 * error handling logic around code values … rather than subcodes or HTTP response status codes"),
 * and the Graph API error-handling guide it defers to for Graph-level codes (17 and 341 "wait and
 * retry", 102 "get a new access token"). Fixtures are Meta's documented shapes, not our sender's.
 */
let stub: GraphStub;
let answer: GraphStub['answer'];
beforeAll(async () => (stub = await startGraphStub((request) => answer(request))));
afterAll(() => stub.close());

const provider = () => whatsAppCloudProvider({ baseUrl: stub.baseUrl, timeoutMs: 1_000, credentials: () => Promise.resolve({ accessToken: 't', appSecret: 's', verifyToken: 'v', phoneNumberId: '1111' }) });
const message = { dispatchId: '3f2b0c1e-5d6a-4b7c-8d9e-0f1a2b3c4d5e', to: '+6281234567890', templateName: 'order_shipped', language: 'en', bodyParameters: [] };
const verdict = (status: number, error: Record<string, unknown> | undefined) => {
  answer = () => ({ status, body: error ? { error } : '<html>Bad Gateway</html>' });
  return provider().send(message).then(() => undefined, (e: ProviderError) => [e.kind, e.code, e.backOff]);
};

describe('Meta-documented error codes, read by code rather than HTTP status', () => {
  it('calls 131045 (incorrect certificate: the number’s registration) a permanent refusal at the HTTP 500 Meta answers it with, not a “later” retried into retries_exhausted:131045', async () => {
    const result = await verdict(500, {
      message: '(#131045) Incorrect certificate',
      type: 'OAuthException',
      code: 131045,
      error_data: { messaging_product: 'whatsapp', details: 'Message failed to send due to a phone number registration error.' },
      fbtrace_id: 'AbCdEf123',
    });
    expect(result).toEqual(['permanent', '131045', 'short']);
  });

  // A gateway's page in place of the Graph API's answer says the API is down or shedding load: retried as an outage (decision 228).
  it('still retries a 5xx or 429 that carries no Graph error, as WhatsApp down, and a transient code at any status', async () => {
    expect(await verdict(503, undefined)).toEqual(['transient', 'http_503', 'outage']);
    expect(await verdict(429, undefined)).toEqual(['transient', 'http_429', 'outage']);
    expect(await verdict(500, { message: 'Something went wrong', code: 131000 })).toEqual(['transient', '131000', 'short']);
  });

  it.each([
    [133004, '(#133004) Server temporarily unavailable', 'Server is temporarily unavailable. Check the WhatsApp Business Platform Status page and try again later.'],
    [131016, '(#131016) Service unavailable', 'A service is temporarily unavailable.'],
    [2, '(#2) Service temporarily unavailable', 'Temporary due to downtime or due to being overloaded.'],
  ])('calls %s (HTTP 503, “check the WhatsApp Business Platform Status page before trying again”) WhatsApp down, not a blip of seconds', async (code, text, details) => {
    const error = { message: text, type: 'OAuthException', code, error_data: { messaging_product: 'whatsapp', details }, fbtrace_id: 'AbCdEf123' };
    expect(await verdict(503, error)).toEqual(['transient', String(code), 'outage']);
  });

  it.each([
    [17, '(#17) User request limit reached'],
    [341, '(#341) Application limit reached'],
  ])('retries Graph throttling code %s (“temporary issue due to throttling: wait and retry”) instead of failing the message at once', async (code, text) => {
    expect(await verdict(400, { message: text, type: 'OAuthException', code, fbtrace_id: 'AbCdEf123' })).toEqual(['transient', String(code), 'long']);
  });

  it.each([
    [4, '(#4) Application request limit reached'],
    [80007, '(#80007) Rate limit issues'],
  ])('backs off for minutes on %s, a limit counted over an hour, rather than failing it after half a minute', async (code, text) => {
    expect(await verdict(400, { message: text, type: 'OAuthException', code, fbtrace_id: 'AbCdEf123' })).toEqual(['transient', String(code), 'long']);
  });

  it('holds delivery on Graph code 102 (API session: the access token expired or was revoked), as it does for 190, instead of failing every message', async () => {
    expect(await verdict(400, { message: 'Error validating access token: Session has expired', type: 'OAuthException', code: 102, fbtrace_id: 'AbCdEf123' })).toEqual(['credentials', '102', 'short']);
  });
});
