import { randomUUID } from 'node:crypto';
import { PutCommand } from '@aws-sdk/lib-dynamodb';
import { applyProviderReports } from '../../lambdas/domain/delivery/provider-reports';
import { webhookEnvelopeSchema } from '../../lambdas/domain/providers/whatsapp-webhook';
import { syncedTemplateId } from '../../lambdas/domain/templates/synced-template';
import { syncedContent } from '../../lambdas/domain/templates/component-reading';
import { MAX_TEMPLATE_VERSIONS_BYTES, versionsBytes } from '../../lambdas/domain/templates/template';
import { getTemplate, saveTemplate, storedTemplateItem } from '../../lambdas/domain/templates/template-repository';
import { mergeSyncedTemplate, syncTemplates } from '../../lambdas/domain/templates/template-sync';
import { graphTemplateSchema } from '../../lambdas/domain/providers/whatsapp-templates';
import { clearTemplateCache } from '../../lambdas/domain/templates/template-lookup';
import { clearWorkspaceCache } from '../../lambdas/domain/workspaces/workspace-lookup';
import { saveWorkspace, updateWorkspace } from '../../lambdas/domain/workspaces/workspace-repository';
import { readWhatsAppTemplateFixture, startGraphStub, templatePages, type GraphStub } from '../support/graph-stub';
import { useTableAndQueues } from '../support/sqs';

/**
 * DynamoDB's 400 KB item limit met by a template's legitimate history. The template item keeps
 * every version inline, up to MAX_TEMPLATE_VERSIONS = 90. A media-card carousel (10 cards, Meta's
 * own fixture shape) with a body at Meta's 1024-character maximum takes about 5.1 KB a version,
 * so its item passes 400 KB at its 80th version (DynamoDB Local refuses that save).
 */
const env = useTableAndQueues();
const WABA = '102290129340777';
let graph: GraphStub;
beforeAll(async () => (graph = await startGraphStub()));
afterAll(() => graph.close());
beforeEach(() => {
  clearTemplateCache();
  clearWorkspaceCache();
});

const syncDeps = () => ({ graph: { baseUrl: graph.baseUrl, timeoutMs: 2_000 }, accessToken: () => Promise.resolve('token-1'), store: env.table });

const intro = (n: number) =>
  `Week ${n} sale! {{1}}, add these plants to your collection. Each is {{2}} off with code {{3}}. ${'Rare succulents, cacti and tropical plants, hand-picked and shipped to your door. '.repeat(20)}`.slice(0, 1024);
const card = (i: number) => ({
  components: [
    { type: 'HEADER', format: 'IMAGE', example: { header_handle: ['4::aW1hZ2UvanBlZw==:ARYYQCCxXMfeYkDSOrk'] } },
    { type: 'BODY', text: `Add plant ${i} to your collection with code {{1}}.`, example: { body_text: [['30OFF']] } },
    { type: 'BUTTONS', buttons: [{ type: 'QUICK_REPLY', text: 'Send more like this' }, { type: 'URL', text: 'Buy now', url: 'https://www.luckyshrub.com/shop?promo={{1}}', example: ['https://www.luckyshrub.com/shop?promo=x'] }] },
  ],
});
const edition = (n: number) => ({
  id: '1473688840035974',
  name: 'weekly_carousel',
  language: 'en_US',
  status: 'APPROVED',
  category: 'MARKETING',
  parameter_format: 'POSITIONAL',
  components: [
    { type: 'BODY', text: intro(n), example: { body_text: [['Pablo', '30%', '30OFF']] } },
    { type: 'CAROUSEL', cards: Array.from({ length: 10 }, (_, i) => card(i)) },
  ],
});

/** A workspace on the stub's account, and the carousel as `editions` syncs would have stored it (Meta allows 10 edits a month). */
let accountHolder: string | undefined;
async function carouselEditedTimes(editions: number) {
  const ws = `ws-${randomUUID().slice(0, 8)}`;
  // An account belongs to one workspace at a time: the previous test's gives it up.
  if (accountHolder) await updateWorkspace(accountHolder, { settings: { whatsappBusinessAccountId: null } }, new Date(), env.table);
  accountHolder = ws;
  await saveWorkspace(
    { id: ws, name: ws, rupiahPerCredit: 150, settings: { sendsPerMinute: 600, dedupe: 'none', provider: 'whatsapp', whatsappPhoneNumberId: `pn-${ws}`, whatsappBusinessAccountId: WABA, creditCostByCategory: { MARKETING: 3, UTILITY: 1, AUTHENTICATION: 1 } } },
    new Date(),
    env.table,
  );
  const id = syncedTemplateId(ws, 'weekly_carousel', 'en_US');
  let stored: Parameters<typeof mergeSyncedTemplate>[0];
  for (let n = 1; n <= editions; n += 1) {
    const graphTemplate = graphTemplateSchema.parse(edition(n));
    stored = mergeSyncedTemplate(stored, { id, graph: graphTemplate, status: 'APPROVED', category: 'MARKETING', content: syncedContent(graphTemplate)!, creditCostPerSend: 3 }, new Date(Date.UTC(2026, 0, 1) + n * 86_400_000)).template;
  }
  return { ws, id, stored: stored! };
}

it('a carousel Meta edited 80 times (under MAX_TEMPLATE_VERSIONS) still takes each new content, and the sync goes on to the next template', async () => {
  expect(intro(1)).toHaveLength(1024);
  const { ws, stored } = await carouselEditedTimes(79);
  await saveTemplate(ws, stored, env.table);

  // The 80th edit and a newly approved template, read by the next scheduled sync.
  const other = { ...edition(1), id: '1000000000000778', name: 'welcome', components: [{ type: 'BODY', text: 'Welcome {{1}}', example: { body_text: [['Budi']] } }] };
  graph.answer = templatePages(WABA, [{ data: [edition(80), other], paging: { cursors: { after: 'x' } } }]);
  await expect(syncTemplates(ws, syncDeps())).resolves.toMatchObject({ read: 2, newVersions: 1, created: 1, skipped: 0 });
  const template = (await getTemplate(ws, syncedTemplateId(ws, 'weekly_carousel', 'en_US'), env.table))!;
  expect(template.versions.filter((version) => version.status === 'READY').map((version) => version.body)).toEqual([intro(80)]);
  expect(versionsBytes(template.versions)).toBeLessThanOrEqual(MAX_TEMPLATE_VERSIONS_BYTES);
  expect(await getTemplate(ws, syncedTemplateId(ws, 'welcome', 'en_US'), env.table)).toBeDefined();
});

// Stored before decision 184 kept a template's versions to 300 KB: the item still reads, and a
// status webhook for it must still apply. Its save checked the limit and threw, so every timed
// status or category webhook for it failed (the sync, finding Meta's content unchanged, never
// rewrote it), and Meta posted the batch again for days.
it('a template stored heavier than the limit takes a status webhook, keeping 300 KB of its versions', async () => {
  const { ws, id, stored: trimmed } = await carouselEditedTimes(58);
  // Its older versions as an earlier release kept them: heavier than the limit in all.
  const stored = { ...trimmed, versions: trimmed.versions.map((version) => (version.status === 'SUPERSEDED' ? { ...version, body: `${version.body}${' '.repeat(400)}` } : version)) };
  expect(versionsBytes(stored.versions)).toBeGreaterThan(MAX_TEMPLATE_VERSIONS_BYTES);
  await env.table.db.send(new PutCommand({ TableName: env.table.tableName, Item: storedTemplateItem(ws, stored) }));

  const paused = readWhatsAppTemplateFixture<{ entry: { id: string; changes: { value: Record<string, unknown> }[] }[] }>('status-update-paused.json');
  paused.entry[0]!.id = WABA;
  Object.assign(paused.entry[0]!.changes[0]!.value, { message_template_name: 'weekly_carousel', message_template_language: 'en_US', message_template_id: 1473688840035974 });
  await applyProviderReports(webhookEnvelopeSchema.parse(paused), env.table);

  const template = (await getTemplate(ws, id, env.table))!;
  expect(template.status).toBe('PAUSED');
  expect(versionsBytes(template.versions)).toBeLessThanOrEqual(MAX_TEMPLATE_VERSIONS_BYTES);
  expect(template.versions.filter((version) => version.status === 'READY').map((version) => version.body)).toEqual([intro(58)]);
});
