import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { contractErrorProblem } from '../support/contract-error';
import { call, SECOND, SECOND_SEED, startTestRuntime, runAdmin } from '../support/local-runtime';
import { postSignedWebhook } from '../support/webhooks';

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
const stopPromotionsTap = (at: Date) => ({
  object: 'whatsapp_business_account',
  entry: [
    {
      id: '102290129340398',
      changes: [
        {
          field: 'messages',
          value: {
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
        },
      ],
    },
  ],
});

/** A customer's marketing preference set in WhatsApp, as Meta's user_preferences webhook reference shows it. */
const marketingPreference = (waId: string, value: 'stop' | 'resume', at: Date) => ({
  object: 'whatsapp_business_account',
  entry: [
    {
      id: '102290129340398',
      changes: [
        {
          field: 'user_preferences',
          value: {
            messaging_product: 'whatsapp',
            metadata: { display_phone_number: '15550783881', phone_number_id: 'second-number' },
            contacts: [{ profile: { name: 'Budi' }, wa_id: waId }],
            user_preferences: [{ wa_id: waId, detail: `User requested to ${value} marketing messages`, category: 'marketing_messages', value, timestamp: Math.floor(at.getTime() / 1000) }],
          },
        },
      ],
    },
  ],
});

const send = (templateId: string, to = CUSTOMER) =>
  call(runtime.url, 'POST', '/v1/messages', {
    apiKey: SECOND.fullKey,
    body: { channel: 'whatsapp', to: `+${to}`, content: { type: 'template', templateId, variables: { name: 'Sari' } } },
  });

beforeAll(async () => {
  runtime = await startTestRuntime({ seedPath: SECOND_SEED });
  await importCategorisedTemplates();
}, 30_000);
afterAll(() => runtime.stop());

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
  }, 30_000);

  it('a customer who stops marketing messages in WhatsApp is refused MARKETING sends until they resume them there', async () => {
    const customer = '6281255550002';
    const stopped = new Date();
    expect((await postSignedWebhook(runtime.url, JSON.stringify(marketingPreference(customer, 'stop', stopped)))).status).toBe(200);

    const refused = await send(MARKETING, customer);
    expect([refused.status, refused.body.error]).toEqual([422, 'recipient_opted_out']);
    expect((await send(UTILITY, customer)).status).toBe(202);
    const listed = await admin('opt-outs', 'list', '--workspace', 'ws-second', '--json');
    expect(JSON.parse(listed.stdout)).toEqual([{ workspaceId: 'ws-second', phone: `+${customer}`, optedOutAt: new Date(Math.floor(stopped.getTime() / 1000) * 1000).toISOString(), source: 'whatsapp' }]);

    expect((await postSignedWebhook(runtime.url, JSON.stringify(marketingPreference(customer, 'resume', new Date(stopped.getTime() + 1_000))))).status).toBe(200);
    expect((await send(MARKETING, customer)).status).toBe(202);
  }, 30_000);
});
