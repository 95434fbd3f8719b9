import { randomUUID } from 'node:crypto';
import { runAdmin } from '../../lib/admin/cli';
import { graphTemplateSchema } from '../../lambdas/domain/providers/whatsapp-templates';
import { applyTemplateWebhook } from '../../lambdas/domain/templates/template-webhook';
import { listTemplates } from '../../lambdas/domain/templates/template-repository';
import { createTestTable } from '../support/dynamodb';
import { readWhatsAppTemplateFixture, startGraphStub, templatePages, type GraphStub } from '../support/graph-stub';

/**
 * Decision 199 through the admin CLI (`templates sync`, as docs/operations.md has an operator run it):
 * the CLI handed a command one `now`, taken when the command started, so every `now()` of a sync it
 * ran was that instant. The retirement's "read after the list was asked for" rule
 * (`contentReadSince`) then took any read made more than a minute into the CLI's run for one
 * "a clock ahead wrote", and retired a template approved meanwhile, which its APPROVED webhook read
 * whole from Meta (decision 147) and which the CLI's list, asked for before it existed, could not
 * have (found by the skeptic review). The sync now runs on the CLI's live clock.
 */
delete process.env.WHATSAPP_SECRET_NAME;
delete process.env.WHATSAPP_ACCESS_TOKEN;

let table: Awaited<ReturnType<typeof createTestTable>>;
let graph: GraphStub;
const pages = ['page-1.json', 'page-2.json', 'page-3.json'].map((name) => readWhatsAppTemplateFixture<Parameters<typeof templatePages>[1][number]>(name));
const pagesWithout = (...names: string[]) => pages.map((page) => ({ ...page, data: page.data.filter((item) => !names.includes((item as { name: string }).name)) }));

beforeAll(async () => {
  table = await createTestTable();
  graph = await startGraphStub();
  process.env.GRAPH_API_BASE_URL = graph.baseUrl;
});
afterAll(async () => {
  await graph.close();
  await table.drop();
});

async function admin(argv: string[], now: Date | (() => Date), env: Record<string, string | undefined> = {}) {
  const out: string[] = [];
  const err: string[] = [];
  const clock = typeof now === 'function' ? now : () => now;
  const status = await runAdmin(argv, { out: (text) => out.push(text), err: (text) => err.push(text), env, target: async () => ({ ...table, description: 'test table' }), now: clock });
  return { status, stdout: out.join('\n'), stderr: err.join('\n') };
}

const reservation = graphTemplateSchema.parse(pages[0]!.data.find((item) => (item as { name: string }).name === 'reservation_confirmation'));

it('a CLI sync that ran over a minute does not retire a template approved, and read by its webhook, after the CLI asked for its list', async () => {
  const ws = `ws-${randomUUID().slice(0, 8)}`;
  const account = `${Date.now()}${Math.floor(Math.random() * 1000)}`.slice(-15);
  // The operator starts `templates sync` at 10:00:00; it asks Meta for the list at once. Before then, the account had
  // every template but reservation_confirmation (an earlier sync).
  const cliStarted = new Date(Date.now() - 10 * 60_000);
  expect((await admin(['workspace', 'create', '--id', ws, '--name', 'Acme', '--rupiah-per-credit', '150', '--whatsapp-business-account-id', account], cliStarted)).status).toBe(0);
  graph.answer = templatePages(account, pagesWithout('reservation_confirmation'));
  expect((await admin(['templates', 'sync', '--workspace', ws], new Date(cliStarted.getTime() - 3_600_000), { WHATSAPP_ACCESS_TOKEN: 'token-1' })).status).toBe(0);

  // At 10:02:30 (the CLI still paging through a large account from a laptop), reservation_confirmation is approved in
  // WhatsApp Manager; its webhook, shaped as Meta sends it, reads it whole and it is sendable.
  const approvedAt = new Date(cliStarted.getTime() + 150_000);
  const webhook = {
    field: 'message_template_status_update' as const,
    time: Math.floor(approvedAt.getTime() / 1000),
    value: { event: 'APPROVED', message_template_id: Number(reservation.id), message_template_name: 'reservation_confirmation', message_template_language: 'en_US', reason: 'NONE', message_template_category: 'UTILITY' },
  };
  expect(await applyTemplateWebhook(account, webhook, table, approvedAt, async () => reservation)).toBe('applied');
  const before = (await listTemplates(ws, table)).find((template) => template.providerName === 'reservation_confirmation');
  expect(before?.status).toBe('APPROVED');

  // The CLI's list was read at 10:00, before the template existed at Meta: it does not have it. Its
  // last page came at 10:03 (by the CLI's clock, once Meta answered).
  const received = graph.received.length;
  const clock = () => (graph.received.length > received ? new Date(cliStarted.getTime() + 180_000) : cliStarted);
  const synced = await admin(['templates', 'sync', '--workspace', ws], clock, { WHATSAPP_ACCESS_TOKEN: 'token-1' });
  expect(synced.status).toBe(0);

  // Read from Meta two minutes after the CLI asked for its list: the list says nothing of it.
  const after = (await listTemplates(ws, table)).find((template) => template.providerName === 'reservation_confirmation');
  expect(after?.status).toBe('APPROVED');
  expect(JSON.parse(synced.stdout.trim().split('\n').at(-1)!)).toMatchObject({ deleted: 0 });
});
