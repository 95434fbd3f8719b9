import { signWebhookBody, statusWebhook } from '../../lambdas/domain/providers/whatsapp-webhook';
import { pathOf, routes } from '../../lambdas/routes';
import { call, SECOND, SECOND_SEED, startTestRuntime } from '../support/local-runtime';

/**
 * WhatsApp's callbacks on a function URL (webhookFrontDoor=functionUrl, docs/deploy.md): the local
 * runtime plays the URL on a port of its own, and the sandbox posts its signed reports there, as
 * WhatsApp would to the deployed URL.
 */
const KEY = SECOND.fullKey;
let runtime: Awaited<ReturnType<typeof startTestRuntime>>;
const invoked: string[] = [];

beforeAll(async () => {
  runtime = await startTestRuntime({
    seedPath: SECOND_SEED,
    webhookFrontDoor: 'functionUrl',
    invoke: (functionName, invocation) => {
      invoked.push(functionName);
      return invocation();
    },
  });
});
afterAll(() => runtime?.stop());

/** A request to the function URL: the callback path and `suffix` (a query), or another path of the URL's host. */
const raw = (method: string, suffix = '', init: { body?: string; headers?: Record<string, string>; path?: string } = {}) => {
  const { path, ...rest } = init;
  const url = path ? `${runtime.webhookUrl.slice(0, -pathOf(routes.whatsappWebhook).length)}${path}` : `${runtime.webhookUrl}${suffix}`;
  return fetch(url, { method, ...rest }).then(async (response) => ({ status: response.status, type: response.headers.get('content-type'), text: await response.text() }));
};

describe('the webhook on a function URL, over HTTP', () => {
  it('is where the sandbox reports: a message to a number ending 0200 ends delivered and read, every report through the URL', async () => {
    expect(new URL(runtime.webhookUrl).port).not.toBe(String(runtime.port));
    const { status, body } = await call(runtime.url, 'POST', '/v1/messages', {
      apiKey: KEY,
      body: { channel: 'whatsapp', to: '081234560200', content: { type: 'template', templateId: SECOND.templateId, variables: { name: 'Sari' } } },
    });
    expect(status).toBe(202);
    const read = async () => (await call(runtime.url, 'GET', pathOf(routes.getMessage, { dispatchId: body.dispatchId as string }), { apiKey: KEY })).body;
    // The test's timeout bounds the wait for the sandbox's three reports.
    while (!(await read()).readAt) await new Promise((resolve) => setTimeout(resolve, 100));
    expect(await read()).toMatchObject({ status: 'delivered', sentAt: expect.any(String), deliveredAt: expect.any(String), readAt: expect.any(String) });
    expect(invoked.filter((name) => name === 'whatsappCallbacks')).toHaveLength(3);
    expect(invoked).not.toContain('whatsappWebhook');
  }, 30_000);

  it('answers Meta’s handshake with the challenge as text', async () => {
    const query = `?hub.mode=subscribe&hub.challenge=1158201444&hub.verify_token=${encodeURIComponent(process.env.WHATSAPP_VERIFY_TOKEN!)}`;
    expect(await raw('GET', query)).toEqual({ status: 200, type: 'text/plain; charset=utf-8', text: '1158201444' });
  });

  it('refuses an unsigned report with 401 and a wrongly signed one the same way, in the contract’s error body', async () => {
    const body = JSON.stringify(statusWebhook('1111', [{ id: 'wamid.forged', status: 'delivered', timestamp: '1767225600' }]));
    const attempts: Record<string, string>[] = [{ 'Content-Type': 'application/json' }, { 'Content-Type': 'application/json', 'X-Hub-Signature-256': signWebhookBody(body, 'another-secret') }];
    for (const headers of attempts) {
      const answer = await raw('POST', '', { body, headers });
      expect([answer.status, JSON.parse(answer.text)]).toEqual([
        401,
        { success: false, error: 'unauthorized', message: 'The X-Hub-Signature-256 header does not match the body', requestId: expect.any(String) },
      ]);
    }
  });

  it('refuses a body over Lambda’s 6 MB payload limit with 413, as a function URL does, before the function runs', async () => {
    // Only the URL's own function: the runtime's consumers, stream publisher and reconciler run beside the test.
    const callbacks = () => invoked.filter((name) => name === 'whatsappCallbacks').length;
    const before = callbacks();
    const answer = await raw('POST', '', { body: 'x'.repeat(6 * 1024 * 1024 + 1), headers: { 'Content-Type': 'application/json' } });
    expect(answer.status).toBe(413);
    expect(callbacks()).toBe(before);
  });

  it('answers any other method or path with 404 in the contract’s error body', async () => {
    const answers = [await raw('PUT'), await raw('POST', '', { path: '/v1/messages' })];
    expect(answers.map(({ status, text }) => [status, JSON.parse(text).error])).toEqual([
      [404, 'not_found'],
      [404, 'not_found'],
    ]);
  });
});
