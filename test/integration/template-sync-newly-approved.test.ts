import { randomUUID } from 'node:crypto';
import { graphTemplateSchema } from '../../lambdas/domain/providers/whatsapp-templates';
import { syncedTemplateId } from '../../lambdas/domain/templates/synced-template';
import { applyTemplateWebhook } from '../../lambdas/domain/templates/template-webhook';
import { getTemplate } from '../../lambdas/domain/templates/template-repository';
import { syncTemplates } from '../../lambdas/domain/templates/template-sync';
import { clearTemplateCache } from '../../lambdas/domain/templates/template-lookup';
import { clearWorkspaceCache } from '../../lambdas/domain/workspaces/workspace-lookup';
import { saveWorkspace } from '../../lambdas/domain/workspaces/workspace-repository';
import { readWhatsAppTemplateFixture, startGraphStub, templatePages, type GraphStub } from '../support/graph-stub';
import { useTableAndQueues } from '../support/sqs';

/**
 * Decision 199: the sync leaves a template be when "a webhook changed its status … from a minute
 * before the list was asked for or later": Meta's list may not show yet what a webhook just told.
 * A template approved before any sync saw it is read whole by its APPROVED webhook (decision 147),
 * and that path writes no status mark, only the read's time; the read time gets no minute of grace.
 */
const env = useTableAndQueues();
const WABA = `${Date.now()}`.slice(-15);
const pages = ['page-1.json', 'page-2.json', 'page-3.json'].map((name) => readWhatsAppTemplateFixture<Parameters<typeof templatePages>[1][number]>(name));
const pagesWithout = (...names: string[]) => pages.map((page) => ({ ...page, data: page.data.filter((item) => !names.includes((item as { name: string }).name)) }));
const reservation = graphTemplateSchema.parse(pages[0]!.data.find((item) => (item as { name: string }).name === 'reservation_confirmation'));

let graph: GraphStub;
beforeAll(async () => (graph = await startGraphStub()));
afterAll(() => graph.close());
beforeEach(() => {
  clearTemplateCache();
  clearWorkspaceCache();
});

const syncDeps = (now: Date) => ({ graph: { baseUrl: graph.baseUrl, timeoutMs: 2_000 }, accessToken: () => Promise.resolve('token-1'), store: env.table, now: () => now });

it('a template its APPROVED webhook read ten seconds before the list was asked for is not marked DELETED', async () => {
  const ws = `ws-${randomUUID().slice(0, 8)}`;
  await saveWorkspace(
    { id: ws, name: ws, rupiahPerCredit: 150, settings: { provider: 'whatsapp', whatsappPhoneNumberId: `pn-${ws}`, whatsappBusinessAccountId: WABA, creditCostByCategory: { MARKETING: 3, UTILITY: 1, AUTHENTICATION: 1 } } },
    new Date(),
    env.table,
  );
  const listAskedAt = new Date();
  // The hourly sync an hour before: reservation_confirmation did not exist yet.
  graph.answer = templatePages(WABA, pagesWithout('reservation_confirmation'));
  await syncTemplates(ws, syncDeps(new Date(listAskedAt.getTime() - 3_600_000)));

  // Approved in WhatsApp Manager ten seconds before this hour's sync: its webhook, shaped as Meta sends it, reads it whole.
  const approvedAt = new Date(listAskedAt.getTime() - 10_000);
  const webhook = {
    field: 'message_template_status_update' as const,
    time: Math.floor(approvedAt.getTime() / 1000),
    value: { event: 'APPROVED', message_template_id: Number(reservation.id), message_template_name: 'reservation_confirmation', message_template_language: 'en_US', reason: 'NONE', message_template_category: 'UTILITY' },
  };
  expect(await applyTemplateWebhook(WABA, webhook, env.table, approvedAt, async () => reservation)).toBe('applied');
  const id = syncedTemplateId(ws, 'reservation_confirmation', 'en_US');
  expect((await getTemplate(ws, id, env.table))?.status).toBe('APPROVED');

  // Meta's list, asked for ten seconds after the approval, does not show it yet.
  const summary = await syncTemplates(ws, syncDeps(listAskedAt));

  expect((await getTemplate(ws, id, env.table))?.status).toBe('APPROVED');
  expect(summary).toMatchObject({ deleted: 0 });
});
