import { randomUUID } from 'node:crypto';
import { syncedTemplateId } from '../../lambdas/domain/templates/synced-template';
import { syncedContent } from '../../lambdas/domain/templates/component-reading';
import { MAX_TEMPLATE_VERSIONS_BYTES, versionsBytes } from '../../lambdas/domain/templates/template';
import { getTemplate, saveTemplate } from '../../lambdas/domain/templates/template-repository';
import { mergeSyncedTemplate, syncTemplates } from '../../lambdas/domain/templates/template-sync';
import { graphTemplateSchema } from '../../lambdas/domain/providers/whatsapp-templates';
import { clearTemplateCache } from '../../lambdas/domain/templates/template-lookup';
import { clearWorkspaceCache } from '../../lambdas/domain/workspaces/workspace-lookup';
import { saveWorkspace } from '../../lambdas/domain/workspaces/workspace-repository';
import { startGraphStub, templatePages, type GraphStub } from '../support/graph-stub';
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

it('a carousel Meta edited 80 times (under MAX_TEMPLATE_VERSIONS) still takes each new content, and the sync goes on to the next template', async () => {
  expect(intro(1)).toHaveLength(1024);
  const ws = `ws-${randomUUID().slice(0, 8)}`;
  await saveWorkspace(
    { id: ws, name: ws, rupiahPerCredit: 150, settings: { sendsPerMinute: 600, dedupe: 'none', provider: 'whatsapp', whatsappPhoneNumberId: `pn-${ws}`, whatsappBusinessAccountId: WABA, creditCostByCategory: { MARKETING: 3, UTILITY: 1, AUTHENTICATION: 1 } } },
    new Date(),
    env.table,
  );
  // 79 approved editions, as 79 syncs would have stored them (Meta allows 10 edits a month).
  const id = syncedTemplateId(ws, 'weekly_carousel', 'en_US');
  let stored: Parameters<typeof mergeSyncedTemplate>[0];
  for (let n = 1; n <= 79; n += 1) {
    const graphTemplate = graphTemplateSchema.parse(edition(n));
    stored = mergeSyncedTemplate(stored, { id, graph: graphTemplate, status: 'APPROVED', category: 'MARKETING', content: syncedContent(graphTemplate)!, creditCostPerSend: 3 }, new Date(Date.UTC(2026, 0, 1) + n * 86_400_000)).template;
  }
  await saveTemplate(ws, stored!, env.table);

  // The 80th edit and a newly approved template, read by the next scheduled sync.
  const other = { ...edition(1), id: '1000000000000778', name: 'welcome', components: [{ type: 'BODY', text: 'Welcome {{1}}', example: { body_text: [['Budi']] } }] };
  graph.answer = templatePages(WABA, [{ data: [edition(80), other], paging: { cursors: { after: 'x' } } }]);
  await expect(syncTemplates(ws, syncDeps())).resolves.toMatchObject({ read: 2, newVersions: 1, created: 1, skipped: 0 });
  const template = (await getTemplate(ws, syncedTemplateId(ws, 'weekly_carousel', 'en_US'), env.table))!;
  expect(template.versions.filter((version) => version.status === 'READY').map((version) => version.body)).toEqual([intro(80)]);
  expect(versionsBytes(template.versions)).toBeLessThanOrEqual(MAX_TEMPLATE_VERSIONS_BYTES);
  expect(await getTemplate(ws, syncedTemplateId(ws, 'welcome', 'en_US'), env.table)).toBeDefined();
});
