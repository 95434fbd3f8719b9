import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { readWhatsAppTemplateFixture, startGraphStub, templatePages } from '../support/graph-stub';
import { call, SECOND_SEED, startTestRuntime, runAdmin, timeoutWithAdminRuns } from '../support/local-runtime';
import { openApiDocument } from '../support/openapi-contract';

// A revocation must show within the key cache TTL; a short one keeps this test quick.
process.env.API_KEY_CACHE_TTL_SECONDS = '1';

let runtime: Awaited<ReturnType<typeof startTestRuntime>>;
const admin = (...args: string[]) => runAdmin(runtime, args);

beforeAll(async () => {
  runtime = await startTestRuntime({ seedPath: SECOND_SEED });
});
afterAll(() => runtime.stop());

describe('the local runtime over HTTP', () => {
  it('answers GET /health without a key', async () => {
    const { status, body } = await call(runtime.url, 'GET', '/health');
    expect(status).toBe(200);
    expect(body).toStrictEqual({ success: true, data: { status: 'ok', service: 'messaging-api-external' } });
  });

  it('answers 401 without a key and with an unknown key, in the contract error body', async () => {
    for (const apiKey of [undefined, 'msk_test_unknown_key_000']) {
      const { status, body, headers } = await call(runtime.url, 'GET', '/v1/message-templates', apiKey ? { apiKey } : {});
      expect(status).toBe(401);
      expect(Object.keys(body).sort()).toEqual(['error', 'message', 'requestId', 'success']);
      expect(body).toMatchObject({ success: false, error: 'unauthorized' });
      expect(headers.get('x-request-id')).toBe(body.requestId);
    }
  });

  it('answers 403 for a key without the route scope', async () => {
    const { status, body } = await call(runtime.url, 'GET', '/v1/message-templates', { apiKey: 'msk_test_second_read_0002' });
    expect([status, body.error]).toEqual([403, 'forbidden']);
  });

  it('lists the seeded workspace’s approved templates for a key with the scope', async () => {
    const { status, body } = await call(runtime.url, 'GET', '/v1/message-templates', { apiKey: 'msk_test_second_full_0001' });
    expect(status).toBe(200);
    expect(body).toStrictEqual({
      items: [
        {
          id: '5e0c0000-0000-4000-8000-000000000001',
          displayName: 'Second hello',
          status: 'APPROVED',
          versions: [
            {
              id: '5e0c0000-0000-4000-8000-0000000000a1',
              version: 1,
              status: 'READY',
              variableDefinitions: [{ name: 'name', type: 'text', required: true }],
              customerPreview: 'Hai {{name}}',
              creditCostPerSend: 1,
              createdAt: '2026-01-01T00:00:00Z',
              readyAt: '2026-01-01T00:10:00Z',
            },
          ],
        },
      ],
    });
  });

  it('serves the committed OpenAPI document at GET /openapi.json, without a key', async () => {
    // Plain fetch: the document describes the API's operations, not the path that serves it.
    const response = await fetch(`${runtime.url}/openapi.json`);
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toMatch(/^application\/json/);
    expect(response.headers.get('x-request-id')).toMatch(/^[0-9a-f-]{36}$/);
    expect(JSON.parse(await response.text())).toEqual(openApiDocument());
  });

  it('answers an unknown route with 404 in the contract error body', async () => {
    const { status, headers, body } = await call(runtime.url, 'GET', '/v1/nothing-here', { apiKey: 'msk_test_second_full_0001' });
    expect(status).toBe(404);
    expect(body).toMatchObject({ success: false, error: 'not_found', message: 'No route matches GET /v1/nothing-here' });
    // Every answer carries its request id, the gateway's own answers too (docs/api.md#conventions).
    expect(headers.get('x-request-id')).toBe(body.requestId);
  });

  it('answers a path that is not valid percent-encoding with 400, not a server error', async () => {
    const { status, headers, body } = await call(runtime.url, 'GET', '/v1/messages/%E0%A4%A', { apiKey: 'msk_test_second_full_0001' });
    expect([status, body.error, body.message]).toEqual([400, 'bad_request', 'The request path is not valid percent-encoded UTF-8']);
    expect(headers.get('x-request-id')).toBe(body.requestId);
  });
});

describe('the admin CLI against the local runtime', () => {
  it('creates a workspace and a key that works at once, lists it, and revokes it within the cache TTL', async () => {
    await admin('workspace', 'create', '--id', 'ws-cli', '--name', 'CLI workspace', '--rupiah-per-credit', '120');
    const created = await admin('key', 'create', '--workspace', 'ws-cli', '--name', 'ci', '--scopes', 'templates:read');
    const key = created.stdout.trim();
    expect(key).toMatch(/^msk_live_[A-Za-z0-9]{32}$/);

    expect((await call(runtime.url, 'GET', '/v1/message-templates', { apiKey: key })).body).toEqual({ items: [] });

    const listed = (await admin('key', 'list', '--workspace', 'ws-cli')).stdout.trim().split('\n');
    expect(listed).toHaveLength(1);
    const [keyId, status, hint] = listed[0]!.split('\t');
    expect([status?.trim(), hint]).toEqual(['active', `…${key.slice(-4)}`]);
    expect(listed[0]).not.toContain(key);

    await admin('key', 'revoke', '--workspace', 'ws-cli', '--key-id', keyId!);
    await new Promise((resolve) => setTimeout(resolve, 1_100));
    const after = await call(runtime.url, 'GET', '/v1/message-templates', { apiKey: key });
    expect([after.status, after.body.message]).toEqual([401, 'The API key has been revoked']);
  }, timeoutWithAdminRuns(4));

  it('imports templates from a file into a workspace', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'templates-'));
    const file = join(dir, 'templates.json');
    writeFileSync(
      file,
      JSON.stringify({
        templates: [
          {
            id: '9a0c0000-0000-4000-8000-000000000001',
            displayName: 'Imported',
            status: 'APPROVED',
            providerName: 'imported',
            language: 'en',
            versions: [{ id: '9a0c0000-0000-4000-8000-0000000000a1', version: 1, status: 'READY', body: 'Hi {{name}}', variableDefinitions: [{ name: 'name' }], creditCostPerSend: 3, createdAt: '2026-02-01T00:00:00Z' }],
          },
        ],
      }),
    );
    const { stdout } = await admin('templates', 'import', '--workspace', 'ws-second', '--file', file).finally(() => rmSync(dir, { recursive: true }));
    expect(stdout.trim()).toBe('Imported 9a0c0000-0000-4000-8000-000000000001 Imported (APPROVED, 1 version(s))');
    const { body } = await call(runtime.url, 'GET', '/v1/message-templates', { apiKey: 'msk_test_second_full_0001' });
    expect((body.items as { id: string }[]).map((t) => t.id)).toEqual(['9a0c0000-0000-4000-8000-000000000001', '5e0c0000-0000-4000-8000-000000000001']);
  }, timeoutWithAdminRuns(1));

  it('syncs a workspace’s templates from its WhatsApp Business Account (a Graph stub serving Meta’s pages)', async () => {
    const graph = await startGraphStub(templatePages('102290129340398', ['page-1.json', 'page-2.json', 'page-3.json'].map((name) => readWhatsAppTemplateFixture<Parameters<typeof templatePages>[1][number]>(name))));
    try {
      await admin('workspace', 'create', '--id', 'ws-waba', '--name', 'WABA', '--rupiah-per-credit', '150', '--provider', 'whatsapp', '--whatsapp-business-account-id', '102290129340398');
      const key = (await admin('key', 'create', '--workspace', 'ws-waba', '--name', 'ci', '--scopes', 'templates:read')).stdout.trim();
      const { stdout } = await runAdmin(runtime, ['templates', 'sync', '--workspace', 'ws-waba'], { GRAPH_API_BASE_URL: graph.baseUrl, WHATSAPP_ACCESS_TOKEN: 'token-1' });
      // The summary is the last line; before it, the sync's log lines (a skipped template is a warning).
      expect(JSON.parse(stdout.trim().split('\n').at(-1)!)).toEqual({ read: 7, created: 6, newVersions: 0, updated: 0, unchanged: 0, skipped: 1, deleted: 0 });
      const { body } = await call(runtime.url, 'GET', '/v1/message-templates', { apiKey: key });
      expect((body.items as { displayName: string }[]).map((t) => t.displayName)).toEqual(['coupon_expiration_reminder (en)', 'reservation_confirmation (en_US)', 'verification_code (id)']);
    } finally {
      await graph.close();
    }
  }, timeoutWithAdminRuns(3, 40_000));

  it('lists a synced catalog template as UNSUPPORTED and answers its send 422; checks an offer’s values by their type (decisions 143, 145)', async () => {
    const graph = await startGraphStub(templatePages('102290129340399', [readWhatsAppTemplateFixture('formats-page.json')]));
    try {
      await admin('workspace', 'create', '--id', 'ws-offers', '--name', 'Offers', '--rupiah-per-credit', '150', '--provider', 'whatsapp', '--whatsapp-business-account-id', '102290129340399');
      const key = (await admin('key', 'create', '--workspace', 'ws-offers', '--name', 'ci', '--scopes', 'templates:read,messages:send')).stdout.trim();
      await runAdmin(runtime, ['templates', 'sync', '--workspace', 'ws-offers'], { GRAPH_API_BASE_URL: graph.baseUrl, WHATSAPP_ACCESS_TOKEN: 'token-1' });

      const { body: list } = await call(runtime.url, 'GET', '/v1/message-templates', { apiKey: key });
      const templates = list.items as { id: string; displayName: string; versions: { status: string; variableDefinitions: { name: string }[] }[] }[];
      expect(templates.map((t) => [t.displayName, t.versions.map((v) => v.status)]).sort()).toEqual([
        ['intro_catalog_offer (en_US)', ['UNSUPPORTED']],
        ['limited_time_offer_caribbean_pkg_2023 (en_US)', ['READY']],
        ['sign_up_flow (en_US)', ['READY']],
        ['summer_succulents_carousel (en_US)', ['READY']],
      ]);

      const byName = (name: string) => templates.find((t) => t.displayName.startsWith(name))!;
      const send = (templateId: string, variables: Record<string, string>) =>
        call(runtime.url, 'POST', '/v1/messages', { apiKey: key, body: { channel: 'whatsapp', to: '081234567890', content: { type: 'template', templateId, variables } } });
      const catalog = await send(byName('intro_catalog_offer').id, { '1': '100', '2': '400', '3': '3' });
      expect([catalog.status, catalog.body.error, catalog.body.message]).toEqual([
        422,
        'template_not_ready',
        `content.templateId: template ${byName('intro_catalog_offer').id} has parts this API cannot send (CATALOG button), so WhatsApp would refuse every message`,
      ]);
      const offer = byName('limited_time_offer_caribbean_pkg_2023');
      expect(offer.versions[0]!.variableDefinitions.map((v) => v.name)).toContain('offer_expiration_time_ms');
      const variables = { '1': 'Pablo', '2': 'CARIBE25', header_image: 'https://example.com/c.png', offer_expiration_time_ms: '1893456000000', button_0: 'CARIBE25', button_1: 'n3mtql' };
      const late = await send(offer.id, { ...variables, offer_expiration_time_ms: 'next week' });
      // Refused before anything is written; an accepted offer would go to WhatsApp itself (the integration tests send one to a stub).
      expect([late.status, late.body.error, late.body.message]).toEqual([422, 'validation_failed', 'content.variables: offer_expiration_time_ms: must be Unix time in milliseconds (digits)']);
    } finally {
      await graph.close();
    }
  }, timeoutWithAdminRuns(3, 40_000));

  it('refuses a key for a workspace that does not exist, with a one-line message and exit code 2', async () => {
    await expect(admin('key', 'create', '--workspace', 'ws-none', '--name', 'x', '--scopes', 'messages:read')).rejects.toMatchObject({
      code: 2,
      stderr: expect.stringContaining('admin: No workspace ws-none: create it first with `workspace create`'),
    });
  }, timeoutWithAdminRuns(1));
});
