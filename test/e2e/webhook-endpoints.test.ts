import { pathOf, routes } from '../../lambdas/routes';
import { call, SECOND, SECOND_SEED, startTestRuntime } from '../support/local-runtime';

/**
 * Webhook endpoint management over the local runtime's HTTP server (docs/api.md#webhook-endpoints).
 * There is no DNS here: WEBHOOK_HOSTS stands in for it, as it does for anyone running `npm start`
 * offline, and the names it answers are checked like any DNS answer.
 */
const OWNER = SECOND.fullKey;
const READ_ONLY = SECOND.readKey;
const NEIGHBOUR = 'msk_test_neighbour_hooks_0001';
const COLLECTION = pathOf(routes.createWebhookEndpoint);
const one = (id: string) => pathOf(routes.getWebhookEndpoint, { id });

let runtime: Awaited<ReturnType<typeof startTestRuntime>>;

beforeAll(async () => {
  process.env.WEBHOOK_HOSTS = 'hooks.example.test=93.184.215.14,intranet.example.test=10.0.0.7,sneaky.example.test=::ffff:169.254.169.254';
  runtime = await startTestRuntime({ seedPath: SECOND_SEED });
  // Imported only now: lambdas/ modules read their configuration once, after the runtime set it.
  const { saveApiKey } = await import('../../lambdas/domain/api-keys/api-key-repository');
  await saveApiKey(NEIGHBOUR, { workspaceId: 'ws-neighbour', name: 'hooks', scopes: ['webhooks:manage'] }, new Date(), runtime.store);
}, 60_000);
afterAll(() => runtime.stop());

describe('webhook endpoints over HTTP', () => {
  it('creates, lists, reads, changes, rotates and deletes an endpoint; the secret only ever in the create and rotate answers', async () => {
    const made = await call(runtime.url, 'POST', COLLECTION, { apiKey: OWNER, body: { url: 'http://127.0.0.1:4000/hooks', description: 'local receiver' } });
    expect(made.status).toBe(201);
    expect(made.body).toEqual({
      id: expect.stringMatching(/^whe_[0-9a-f]{32}$/),
      url: 'http://127.0.0.1:4000/hooks',
      events: null,
      description: 'local receiver',
      status: 'enabled',
      disabledReason: null,
      createdAt: expect.any(String),
      updatedAt: made.body.createdAt,
      secret: expect.stringMatching(/^whsec_/),
    });
    const { secret, ...endpoint } = made.body;
    const id = String(endpoint.id);

    const listed = await call(runtime.url, 'GET', COLLECTION, { apiKey: OWNER });
    expect([listed.status, listed.body]).toEqual([200, { items: [endpoint] }]);
    const read = await call(runtime.url, 'GET', one(id), { apiKey: OWNER });
    expect([read.status, read.body]).toEqual([200, endpoint]);

    const patched = await call(runtime.url, 'PATCH', one(id), { apiKey: OWNER, body: { url: 'https://hooks.example.test/messaging', events: ['message.status.updated'], description: null } });
    expect(patched.status).toBe(200);
    expect(patched.body).toEqual({ ...endpoint, url: 'https://hooks.example.test/messaging', events: ['message.status.updated'], description: null, updatedAt: expect.any(String) });

    const rotated = await call(runtime.url, 'POST', pathOf(routes.rotateWebhookSecret, { id }), { apiKey: OWNER, body: { overlapSeconds: 3600 } });
    expect(rotated.status).toBe(200);
    expect(rotated.body).toEqual({ secret: expect.stringMatching(/^whsec_/), previousSecretExpiresAt: expect.any(String) });
    expect(rotated.body.secret).not.toBe(secret);
    expect(Date.parse(String(rotated.body.previousSecretExpiresAt)) - Date.now()).toBeGreaterThan(3_500_000);
    for (const answer of [await call(runtime.url, 'GET', one(id), { apiKey: OWNER }), await call(runtime.url, 'GET', COLLECTION, { apiKey: OWNER })]) {
      expect(JSON.stringify(answer.body)).not.toContain('whsec_');
    }

    const deleted = await call(runtime.url, 'DELETE', one(id), { apiKey: OWNER });
    expect([deleted.status, deleted.body]).toEqual([204, {}]);
    expect((await call(runtime.url, 'GET', one(id), { apiKey: OWNER })).status).toBe(404);
    expect((await call(runtime.url, 'DELETE', one(id), { apiKey: OWNER })).status).toBe(404);
    expect((await call(runtime.url, 'GET', COLLECTION, { apiKey: OWNER })).body).toEqual({ items: [] });
  });

  it('replays a create and a rotation sent again with their Idempotency-Key: the same answer, Idempotent-Replayed, nothing changed again', async () => {
    const create = () => call(runtime.url, 'POST', COLLECTION, { apiKey: OWNER, body: { url: 'http://127.0.0.1:4000/hooks' }, headers: { 'Idempotency-Key': 'e2e-create' } });
    const made = await create();
    const again = await create();
    expect([made.status, made.headers.get('idempotent-replayed')]).toEqual([201, null]);
    expect([again.status, again.headers.get('idempotent-replayed'), again.body]).toEqual([201, 'true', made.body]);
    const id = String(made.body.id);
    expect(((await call(runtime.url, 'GET', COLLECTION, { apiKey: OWNER })).body.items as { id: string }[]).filter((item) => item.id === id)).toHaveLength(1);

    const rotate = () => call(runtime.url, 'POST', pathOf(routes.rotateWebhookSecret, { id }), { apiKey: OWNER, body: {}, headers: { 'Idempotency-Key': 'e2e-rotate' } });
    const rotated = await Promise.all([rotate(), rotate()]);
    expect(rotated.map((answer) => answer.status)).toEqual([200, 200]);
    expect(rotated[1].body).toEqual(rotated[0].body);
    const conflict = await call(runtime.url, 'POST', pathOf(routes.rotateWebhookSecret, { id }), { apiKey: OWNER, body: { overlapSeconds: 0 }, headers: { 'Idempotency-Key': 'e2e-rotate' } });
    expect([conflict.status, conflict.body.error]).toEqual([409, 'idempotency_conflict']);
    expect((await call(runtime.url, 'DELETE', one(id), { apiKey: OWNER })).status).toBe(204);
  });

  it('answers another workspace’s endpoint exactly as one that does not exist: 404, and changes nothing', async () => {
    const made = await call(runtime.url, 'POST', COLLECTION, { apiKey: OWNER, body: { url: 'http://localhost:4000/hooks' } });
    const id = String(made.body.id);
    const nowhere = 'whe_00000000000000000000000000000000';

    for (const target of [id, nowhere]) {
      const probes = [
        await call(runtime.url, 'GET', one(target), { apiKey: NEIGHBOUR }),
        await call(runtime.url, 'PATCH', one(target), { apiKey: NEIGHBOUR, body: { url: 'https://hooks.example.test/stolen' } }),
        await call(runtime.url, 'POST', pathOf(routes.rotateWebhookSecret, { id: target }), { apiKey: NEIGHBOUR, body: {} }),
        await call(runtime.url, 'DELETE', one(target), { apiKey: NEIGHBOUR }),
      ];
      expect(probes.map(({ status, body }) => [status, body.error, body.message])).toEqual(Array(4).fill([404, 'not_found', 'Webhook endpoint was not found']));
    }
    expect((await call(runtime.url, 'GET', COLLECTION, { apiKey: NEIGHBOUR })).body).toEqual({ items: [] });
    expect((await call(runtime.url, 'GET', one(id), { apiKey: OWNER })).body).toEqual({ ...made.body, secret: undefined });
    await call(runtime.url, 'DELETE', one(id), { apiKey: OWNER });
  });

  it('answers 403 to a key without webhooks:manage', async () => {
    for (const [method, path, body] of [['GET', COLLECTION], ['POST', COLLECTION, { url: 'http://127.0.0.1:4000/' }], ['GET', one('whe_00000000000000000000000000000000')]] as const) {
      const answer = await call(runtime.url, method, path, { apiKey: READ_ONLY, ...(body ? { body } : {}) });
      expect([answer.status, answer.body.error, answer.body.message]).toEqual([403, 'forbidden', 'This API key lacks the scope "webhooks:manage" required by this operation']);
    }
  });

  it.each([
    ['http://10.0.0.1/hooks', 'body.url: must use https (or http to 127.0.0.1 or localhost, locally)'],
    ['https://10.0.0.1/hooks', 'body.url: must not point to a private address (10.0.0.1)'],
    ['https://169.254.169.254/latest/meta-data/', 'body.url: must not point to a cloud metadata address (169.254.169.254)'],
    ['https://intranet.example.test/hooks', 'body.url: resolves to 10.0.0.7, a private address'],
    ['https://sneaky.example.test/hooks', 'body.url: resolves to ::ffff:169.254.169.254, a cloud metadata address (169.254.169.254, inside an IPv6 address)'],
    ['http://hooks.example.test/hooks', 'body.url: must use https (or http to 127.0.0.1 or localhost, locally)'],
  ])('refuses %s with 422 and stores nothing', async (url, message) => {
    const refused = await call(runtime.url, 'POST', COLLECTION, { apiKey: OWNER, body: { url } });

    expect([refused.status, refused.body.error, refused.body.message]).toEqual([422, 'validation_failed', message]);
    expect((await call(runtime.url, 'GET', COLLECTION, { apiKey: OWNER })).body).toEqual({ items: [] });
  });

  it('accepts a name that resolves to a public address, and re-checks the url on a patch', async () => {
    const made = await call(runtime.url, 'POST', COLLECTION, { apiKey: OWNER, body: { url: 'https://hooks.example.test/a', events: ['message.received'] } });
    expect(made.status).toBe(201);
    const id = String(made.body.id);

    const refused = await call(runtime.url, 'PATCH', one(id), { apiKey: OWNER, body: { url: 'https://intranet.example.test/a' } });
    expect([refused.status, refused.body.message]).toEqual([422, 'body.url: resolves to 10.0.0.7, a private address']);
    expect((await call(runtime.url, 'GET', one(id), { apiKey: OWNER })).body).toMatchObject({ url: 'https://hooks.example.test/a' });

    const unknownType = await call(runtime.url, 'PATCH', one(id), { apiKey: OWNER, body: { events: ['message.deleted'] } });
    expect([unknownType.status, unknownType.body.error, unknownType.body.message]).toEqual([422, 'validation_failed', 'body.events.0: must be one of message.status.updated, message.received, template.status.updated, marketing_opt_out.updated']);
    await call(runtime.url, 'DELETE', one(id), { apiKey: OWNER });
  });
});
