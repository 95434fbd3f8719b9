import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { contractErrorProblem } from '../support/contract-error';
import { call, SECOND, SECOND_SEED, startTestRuntime, runAdmin, timeoutWithAdminRuns } from '../support/local-runtime';
import { postSignedWebhook, whatsAppEnvelope } from '../support/webhooks';
import { Webhook } from 'standardwebhooks';
import { pathOf, routes } from '../../lambdas/routes';

let runtime: Awaited<ReturnType<typeof startTestRuntime>>;
const admin = (...args: string[]) => runAdmin(runtime, args);

const MARKETING = '5e0c0000-0000-4000-8000-00000000b001';
const UTILITY = '5e0c0000-0000-4000-8000-00000000b002';
const CUSTOMER = '6281255550001';

/** The seed's template of ws-second, imported again as a MARKETING and a UTILITY template. */
function importCategorisedTemplates() {
  const seeded = (JSON.parse(readFileSync(SECOND_SEED, 'utf8')) as { workspaces: { id: string; templates: Record<string, unknown>[] }[] }).workspaces.find(({ id }) => id === 'ws-second')!.templates[0]!;
  const variant = (id: string, category: string, versionId: string) => ({
    ...seeded,
    id,
    category,
    versions: (seeded.versions as Record<string, unknown>[]).map((version) => ({ ...version, id: versionId })),
  });
  const dir = mkdtempSync(join(tmpdir(), 'templates-'));
  const file = join(dir, 'templates.json');
  writeFileSync(file, JSON.stringify({ templates: [variant(MARKETING, 'MARKETING', '5e0c0000-0000-4000-8000-00000000b0a1'), variant(UTILITY, 'UTILITY', '5e0c0000-0000-4000-8000-00000000b0a2')] }));
  return admin('templates', 'import', '--workspace', 'ws-second', '--file', file).finally(() => rmSync(dir, { recursive: true }));
}

/** A "Stop promotions" tap as Meta's button messages webhook reference shows it. */
const stopPromotionsTap = (at: Date) =>
  whatsAppEnvelope(
    'messages',
    {
      messaging_product: 'whatsapp',
      metadata: { display_phone_number: '15550783881', phone_number_id: 'second-number' },
      contacts: [{ profile: { name: 'Sari' }, wa_id: CUSTOMER }],
      messages: [
        {
          context: { from: '15550783881', id: 'wamid.HBgLMTQxMjU1NTA4MjkVAgASGBQzQUNCNjk5RDUwNUZGMUZEM0VBRAA=' },
          from: CUSTOMER,
          id: 'wamid.HBgLMTY1MDM4Nzk0MzkVAgASGBQzQUFERjg0NDEzNDdFODU3MUMxMAA=',
          timestamp: String(Math.floor(at.getTime() / 1000)),
          type: 'button',
          button: { payload: 'Stop promotions', text: 'Stop promotions' },
        },
      ],
    },
    '102290129340398',
  );

/** A customer's marketing preference set in WhatsApp, as Meta's user_preferences webhook reference shows it. */
const marketingPreference = (waId: string, value: 'stop' | 'resume', at: Date) =>
  whatsAppEnvelope(
    'user_preferences',
    {
      messaging_product: 'whatsapp',
      metadata: { display_phone_number: '15550783881', phone_number_id: 'second-number' },
      contacts: [{ profile: { name: 'Budi' }, wa_id: waId }],
      user_preferences: [{ wa_id: waId, detail: `User requested to ${value} marketing messages`, category: 'marketing_messages', value, timestamp: Math.floor(at.getTime() / 1000) }],
    },
    '102290129340398',
  );

const send = (templateId: string, to = CUSTOMER) =>
  call(runtime.url, 'POST', '/v1/messages', {
    apiKey: SECOND.fullKey,
    body: { channel: 'whatsapp', to: `+${to}`, content: { type: 'template', templateId, variables: { name: 'Sari' } } },
  });

/** The workspace's integration: an endpoint on this machine taking `marketing_opt_out.updated`, its events verified. */
const received: { type: string; data: Record<string, unknown> }[] = [];
let hooks: Server;
let secret: string;

beforeAll(async () => {
  runtime = await startTestRuntime({ seedPath: SECOND_SEED });
  await importCategorisedTemplates();
  hooks = createServer((request, response) => {
    let body = '';
    request.on('data', (chunk: Buffer) => (body += chunk.toString()));
    request.on('end', () => {
      received.push(new Webhook(secret).verify(body, request.headers as Record<string, string>) as (typeof received)[number]);
      response.writeHead(204).end();
    });
  });
  await new Promise<void>((resolve) => hooks.listen(0, '127.0.0.1', resolve));
  // Before any opt-out changes: a workspace's first endpoint makes events within 10 s (docs/api.md).
  const made = await call(runtime.url, 'POST', pathOf(routes.createWebhookEndpoint), {
    apiKey: SECOND.fullKey,
    body: { url: `http://127.0.0.1:${(hooks.address() as AddressInfo).port}/hooks`, events: ['marketing_opt_out.updated'] },
  });
  secret = String(made.body.secret);
}, timeoutWithAdminRuns(1));
afterAll(async () => {
  await runtime.stop();
  await new Promise((resolve) => hooks.close(resolve));
});

describe('marketing opt-outs over HTTP', () => {
  it('a "Stop promotions" tap refuses MARKETING sends to the number until an operator lifts it', async () => {
    expect((await send(MARKETING)).status).toBe(202);

    const webhook = await postSignedWebhook(runtime.url, JSON.stringify(stopPromotionsTap(new Date())));
    expect(webhook.status).toBe(200);

    const refused = await send(MARKETING);
    expect(contractErrorProblem(refused.status, refused.body)).toBeUndefined();
    expect([refused.status, refused.body.error, refused.body.message]).toEqual([
      422,
      'recipient_opted_out',
      `to: +${CUSTOMER} opted out of this workspace's marketing messages; template ${MARKETING} is MARKETING`,
    ]);
    expect((await send(UTILITY)).status).toBe(202);

    const listed = await admin('opt-outs', 'list', '--workspace', 'ws-second', '--json');
    expect(JSON.parse(listed.stdout)).toEqual([expect.objectContaining({ workspaceId: 'ws-second', phone: `+${CUSTOMER}`, source: 'button' })]);

    await admin('opt-outs', 'remove', '--workspace', 'ws-second', '--phone', `+${CUSTOMER}`);
    expect((await send(MARKETING)).status).toBe(202);
  }, timeoutWithAdminRuns(2));

  it('a customer who stops marketing messages in WhatsApp is refused MARKETING sends until they resume them there', async () => {
    const customer = '6281255550002';
    const stopped = new Date();
    expect((await postSignedWebhook(runtime.url, JSON.stringify(marketingPreference(customer, 'stop', stopped)))).status).toBe(200);

    const refused = await send(MARKETING, customer);
    expect([refused.status, refused.body.error]).toEqual([422, 'recipient_opted_out']);
    expect((await send(UTILITY, customer)).status).toBe(202);
    const listed = await admin('opt-outs', 'list', '--workspace', 'ws-second', '--json');
    expect(JSON.parse(listed.stdout)).toEqual([{ workspaceId: 'ws-second', phone: `+${customer}`, optedOutAt: new Date(Math.floor(stopped.getTime() / 1000) * 1000).toISOString(), source: 'whatsapp' }]);

    const resumed = new Date(stopped.getTime() + 1_000);
    expect((await postSignedWebhook(runtime.url, JSON.stringify(marketingPreference(customer, 'resume', resumed)))).status).toBe(200);
    expect((await send(MARKETING, customer)).status).toBe(202);

    // The integration heard of both, signed, as marketing_opt_out.updated events.
    const seconds = (at: Date) => new Date(Math.floor(at.getTime() / 1000) * 1000).toISOString();
    const ofCustomer = () => received.filter((event) => event.data.phone === `+${customer}`);
    for (const deadline = Date.now() + 15_000; ofCustomer().length < 2 && Date.now() < deadline; ) await new Promise((resolve) => setTimeout(resolve, 200));
    expect(ofCustomer().map(({ type, data }) => ({ type, data })).sort((a, b) => String(a.data.at).localeCompare(String(b.data.at)))).toEqual([
      { type: 'marketing_opt_out.updated', data: { phone: `+${customer}`, optedOut: true, by: 'whatsapp', at: seconds(stopped) } },
      { type: 'marketing_opt_out.updated', data: { phone: `+${customer}`, optedOut: false, by: 'whatsapp', at: seconds(resumed) } },
    ]);
  }, timeoutWithAdminRuns(2));
});
