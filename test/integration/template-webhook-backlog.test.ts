import { randomUUID } from 'node:crypto';
import type { BuildMiddleware } from '@smithy/types';
import { applyProviderReports } from '../../lambdas/domain/delivery/provider-reports';
import { webhookEnvelopeSchema } from '../../lambdas/domain/providers/whatsapp-webhook';
import { syncedTemplateId } from '../../lambdas/domain/templates/synced-template';
import { clearTemplateCache } from '../../lambdas/domain/templates/template-lookup';
import { getTemplate } from '../../lambdas/domain/templates/template-repository';
import { syncTemplates } from '../../lambdas/domain/templates/template-sync';
import { clearWorkspaceCache } from '../../lambdas/domain/workspaces/workspace-lookup';
import { saveWorkspace } from '../../lambdas/domain/workspaces/workspace-repository';
import { readWhatsAppTemplateFixture, startGraphStub, templatePages, type GraphStub } from '../support/graph-stub';
import { useTableAndQueues } from '../support/sqs';

/**
 * Meta re-delivers a backlog of one template's status webhooks at once. Each applies over the
 * template as it read it, and is refused when another moved the template's mark in between: it
 * reads again. A webhook outrun that way a few times running must still apply, not fail its POST.
 */
const env = useTableAndQueues();
const WABA = '102290129340398';
const pages = ['page-1.json', 'page-2.json', 'page-3.json'].map((name) => readWhatsAppTemplateFixture<Parameters<typeof templatePages>[1][number]>(name));
let graph: GraphStub;
beforeAll(async () => (graph = await startGraphStub()));
afterAll(() => graph.close());
beforeEach(() => {
  graph.answer = templatePages(WABA, pages);
  clearTemplateCache();
  clearWorkspaceCache();
});

function webhookAt(name: 'status-update-paused.json' | 'status-update-reinstated.json', time: number) {
  const body = readWhatsAppTemplateFixture<{ entry: { time: number }[] }>(name);
  body.entry[0]!.time = time;
  return applyProviderReports(webhookEnvelopeSchema.parse(body), env.table);
}

describe('a backlog of one template’s status webhooks', () => {
  it('applies the newest, answered 200, after older ones landed between each of its reads and its save', async () => {
    const ws = `ws-${randomUUID().slice(0, 8)}`;
    await saveWorkspace(
      { id: ws, name: ws, rupiahPerCredit: 150, settings: { sendsPerMinute: 600, dedupe: 'none', provider: 'whatsapp', whatsappPhoneNumberId: `pn-${ws}`, whatsappBusinessAccountId: WABA } },
      new Date(),
      env.table,
    );
    await syncTemplates(ws, { graph: { baseUrl: graph.baseUrl, timeoutMs: 2_000 }, accessToken: () => Promise.resolve('token-1'), store: env.table });
    const id = syncedTemplateId(ws, 'coupon_expiration_reminder', 'en');
    const t = 1751247548;

    // After each of the newest webhook's reads of the template, an older one of the backlog lands
    // (PAUSED, REINSTATED, … each newer than the last): six times running.
    const older = Array.from({ length: 6 }, (_, i) => () => webhookAt(i % 2 ? 'status-update-reinstated.json' : 'status-update-paused.json', t + i));
    let landing = false;
    const olderLandsAfterRead: BuildMiddleware<object, object> = (next, context) => async (args) => {
      const answer = await next(args);
      const key = (args.input as { Key?: { sk?: { S?: string } } }).Key;
      const land = older[0];
      if (!landing && land && context.commandName === 'GetItemCommand' && key?.sk?.S === `TPL#${id}`) {
        landing = true;
        older.shift();
        await land().finally(() => (landing = false));
      }
      return answer;
    };
    env.table.db.middlewareStack.add(olderLandsAfterRead as never, { step: 'build', name: 'older-lands-after-read' });
    try {
      // The newest: a PAUSED a minute after them all.
      await expect(webhookAt('status-update-paused.json', t + 60)).resolves.toBeDefined();
    } finally {
      env.table.db.middlewareStack.remove('older-lands-after-read');
    }
    expect(older).toHaveLength(0);
    expect(await getTemplate(ws, id, env.table)).toMatchObject({ status: 'PAUSED', statusChangedAt: new Date((t + 60) * 1000).toISOString() });
  });
});
