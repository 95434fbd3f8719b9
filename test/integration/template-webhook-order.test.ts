import { randomUUID } from 'node:crypto';
import { GetCommand, PutCommand, TransactWriteCommand } from '@aws-sdk/lib-dynamodb';
import type { BuildMiddleware } from '@smithy/types';
import { applyProviderReports } from '../../lambdas/domain/delivery/provider-reports';
import { getDispatch } from '../../lambdas/domain/messages/dispatch-repository';
import { sendTemplateMessage } from '../../lambdas/domain/messages/send-message';
import { webhookEnvelopeSchema } from '../../lambdas/domain/providers/whatsapp-webhook';
import { syncedTemplateId } from '../../lambdas/domain/templates/synced-template';
import { currentVersion, type Template } from '../../lambdas/domain/templates/template';
import { clearTemplateCache } from '../../lambdas/domain/templates/template-lookup';
import { getTemplate, saveTemplate, saveTemplateOverRead, storedTemplateItem } from '../../lambdas/domain/templates/template-repository';
import { sampleTemplate } from '../../lib/testing/send-items';
import { syncTemplates } from '../../lambdas/domain/templates/template-sync';
import { applyTemplateWebhook, type TemplateWebhookField } from '../../lambdas/domain/templates/template-webhook';
import { clearWorkspaceCache } from '../../lambdas/domain/workspaces/workspace-lookup';
import { saveWorkspace, updateWorkspace } from '../../lambdas/domain/workspaces/workspace-repository';
import { READ_BEFORE_TEMPLATE_FIXTURES, readWhatsAppTemplateFixture, startGraphStub, templatePages, type GraphStub } from '../support/graph-stub';
import { useTableAndQueues } from '../support/sqs';

/**
 * Meta's template status webhooks carry the change's time (`entry[].time`, Unix seconds), and Meta
 * re-delivers a POST it got no 200 for, for days, so they may come out of order (docs/api.md
 * "Marketing opt-outs": "WhatsApp's webhooks may come out of order"; decision 151). A PAUSED
 * (time 1751247548) that arrives after the REINSTATED that ended it (time 1751258348, three
 * hours later) must not pause the template again; nor may any older status or category change
 * overwrite a newer one.
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
afterEach(() => env.queues.receiveAll());

let holder: string | undefined;
async function workspace(creditCostByCategory = { MARKETING: 3, UTILITY: 1, AUTHENTICATION: 1 }): Promise<string> {
  const id = `ws-${randomUUID().slice(0, 8)}`;
  if (holder) await updateWorkspace(holder, { settings: { whatsappBusinessAccountId: null } }, new Date(), env.table);
  holder = id;
  await saveWorkspace(
    { id, name: id, rupiahPerCredit: 150, settings: { sendsPerMinute: 600, dedupe: 'none', provider: 'whatsapp', whatsappPhoneNumberId: `pn-${id}`, whatsappBusinessAccountId: WABA, creditCostByCategory } },
    new Date(),
    env.table,
  );
  return id;
}
const webhook = (name: string) => applyProviderReports(webhookEnvelopeSchema.parse(readWhatsAppTemplateFixture(name)), env.table);
/** A fixture with its entry's `time` changed: the same change made again, later. */
function webhookAt(name: string, time: number) {
  const body = readWhatsAppTemplateFixture<{ entry: { time: number }[] }>(name);
  body.entry[0]!.time = time;
  return applyProviderReports(webhookEnvelopeSchema.parse(body), env.table);
}
/** A fixture's template change applied as the webhook router applies it: its outcome. */
function outcomeOf(name: string) {
  const [entry] = readWhatsAppTemplateFixture<{ entry: { id: string; time: number; changes: { field: TemplateWebhookField; value: unknown }[] }[] }>(name).entry;
  return applyTemplateWebhook(entry!.id, { ...entry!.changes[0]!, time: entry!.time }, env.table);
}
/** The sync's dependencies; `listedAt`, when its list is read (our clock's now without it). */
const syncDeps = (listedAt?: Date) => ({ graph: { baseUrl: graph.baseUrl, timeoutMs: 2_000 }, accessToken: () => Promise.resolve('token-1'), store: env.table, ...(listedAt ? { now: () => listedAt } : {}) });

describe('template status webhooks that arrive out of order', () => {
  // A template file may give its times with an offset (WIB's +07:00), and `templates import` stored
  // them so. A read that turned them to UTC never matched the stored marks the save holds its write
  // to: every webhook and sync for such a template was refused as if a newer one had moved them.
  it('a save over what was read is taken for a template whose statusChangedAt was stored with +07:00', async () => {
    const ws = `ws-off-${randomUUID().slice(0, 8)}`;
    const stored = { ...sampleTemplate, id: randomUUID(), statusChangedAt: '2026-01-05T10:00:00+07:00' } as Template;
    await env.table.db.send(new PutCommand({ TableName: env.table.tableName, Item: storedTemplateItem(ws, stored) }));
    const read = (await getTemplate(ws, stored.id, env.table, { consistent: true }))!;
    expect(await saveTemplateOverRead(ws, { ...read, status: 'PAUSED' }, read, env.table)).toBe(true);
    expect(await getTemplate(ws, stored.id, env.table, { consistent: true })).toMatchObject({ status: 'PAUSED' });
  });

  it('a PAUSED re-delivered after the REINSTATED that ended it leaves the template APPROVED and sendable', async () => {
    const ws = await workspace();
    await syncTemplates(ws, syncDeps(READ_BEFORE_TEMPLATE_FIXTURES));
    const coupon = (await getTemplate(ws, syncedTemplateId(ws, 'coupon_expiration_reminder', 'en'), env.table))!;
    expect(coupon.status).toBe('APPROVED');

    await webhook('status-update-reinstated.json');
    await webhook('status-update-paused.json');

    clearTemplateCache();
    expect((await getTemplate(ws, coupon.id, env.table))!.status).toBe('APPROVED');
    const answer = await sendTemplateMessage(
      { workspaceId: ws, apiClient: { id: randomUUID(), name: 'k' }, to: '081234567890', templateId: coupon.id, variables: { '1': 'SUMMER20', '2': '10', header_1: 'Budi', button_0: 'SUMMER20' }, tagIds: [], trackingTags: [], now: new Date() },
      { store: env.table, queue: env.queues },
    );
    expect(answer).toMatchObject({ status: 'queued' });
  });

  it('a REINSTATED delivered late, after the second PAUSED that followed it, leaves the template PAUSED: a send is 422, not queued for WhatsApp to refuse', async () => {
    const ws = await workspace();
    await syncTemplates(ws, syncDeps(READ_BEFORE_TEMPLATE_FIXTURES));
    const coupon = (await getTemplate(ws, syncedTemplateId(ws, 'coupon_expiration_reminder', 'en'), env.table))!;

    await webhook('status-update-paused.json');
    await webhookAt('status-update-paused.json', 1_751_262_000);
    await webhook('status-update-reinstated.json');

    clearTemplateCache();
    expect((await getTemplate(ws, coupon.id, env.table))!.status).toBe('PAUSED');
  });

  it('a category change delivered late, after the later change that undid it, leaves the category and credit cost Meta has now', async () => {
    const ws = await workspace({ MARKETING: 5, UTILITY: 1, AUTHENTICATION: 1 });
    await syncTemplates(ws, syncDeps(READ_BEFORE_TEMPLATE_FIXTURES));
    const before = (await getTemplate(ws, syncedTemplateId(ws, 'reservation_confirmation', 'en_US'), env.table))!;
    expect(before.category).toBe('UTILITY');

    const undone = readWhatsAppTemplateFixture<{ entry: { time: number; changes: { value: Record<string, unknown> }[] }[] }>('category-update-completed.json');
    undone.entry[0]!.time = 1_746_169_200 + 86_400;
    Object.assign(undone.entry[0]!.changes[0]!.value, { previous_category: 'MARKETING', new_category: 'UTILITY' });
    await applyProviderReports(webhookEnvelopeSchema.parse(undone), env.table);
    await webhook('category-update-completed.json');

    clearTemplateCache();
    const after = (await getTemplate(ws, before.id, env.table))!;
    const { dispatchId } = await sendTemplateMessage(
      { workspaceId: ws, apiClient: { id: randomUUID(), name: 'k' }, to: '081234567890', templateId: before.id, variables: { number_of_guests: '4', day: 'Saturday', date: 'August 30th', time: '7:30 pm', header_image: 'https://example.com/t.jpg', button_0: 'R-1042' }, tagIds: [], trackingTags: [], now: new Date() },
      { store: env.table, queue: env.queues },
    );
    expect({ category: after.category, creditCost: (await getDispatch(ws, dispatchId, env.table))!.creditCost }).toEqual({ category: 'UTILITY', creditCost: 1 });
  });

  it('two at once: the older one, saving after the newer one landed, is refused on the mark and read again, so it does not win', async () => {
    const ws = await workspace();
    await syncTemplates(ws, syncDeps(READ_BEFORE_TEMPLATE_FIXTURES));
    const couponId = syncedTemplateId(ws, 'coupon_expiration_reminder', 'en');
    // The PAUSED has read the template (APPROVED, no mark); the REINSTATED that ended it is saved before the PAUSED's save.
    let reinstated = false;
    const db = new Proxy(env.table.db, {
      get(target, prop) {
        if (prop !== 'send') return Reflect.get(target, prop);
        return async (command: unknown) => {
          if (command instanceof TransactWriteCommand && !reinstated) {
            reinstated = true;
            await webhook('status-update-reinstated.json');
          }
          return target.send(command as never);
        };
      },
    });
    await applyProviderReports(webhookEnvelopeSchema.parse(readWhatsAppTemplateFixture('status-update-paused.json')), { db, tableName: env.table.tableName });

    expect(reinstated).toBe(true);
    expect(await getTemplate(ws, couponId, env.table)).toMatchObject({ status: 'APPROVED', statusChangedAt: '2025-06-30T04:39:08.000Z' });
  });

  it('the hourly sync sets Meta’s status now and marks it at its read: a change older than that, arriving after the sync, still changes nothing', async () => {
    const ws = await workspace();
    await syncTemplates(ws, syncDeps(READ_BEFORE_TEMPLATE_FIXTURES));
    const couponId = syncedTemplateId(ws, 'coupon_expiration_reminder', 'en');
    await webhook('status-update-reinstated.json');
    await webhook('category-update-completed.json');

    // Meta paused it again; the sync reads that before its webhook comes.
    const paused = structuredClone(pages);
    for (const page of paused) for (const template of page.data as { name: string; status: string }[]) if (template.name === 'coupon_expiration_reminder') template.status = 'PAUSED';
    graph.answer = templatePages(WABA, paused);
    const listedAt = new Date();
    await syncTemplates(ws, syncDeps(listedAt));
    // What the list moved (the status, and the category it had before the webhook) is marked at its read, less the minute's skew.
    const readMark = new Date(listedAt.getTime() - 60_000).toISOString();
    expect(await getTemplate(ws, couponId, env.table)).toMatchObject({ status: 'PAUSED', statusChangedAt: readMark });
    expect(await getTemplate(ws, syncedTemplateId(ws, 'reservation_confirmation', 'en_US'), env.table)).toMatchObject({ category: 'UTILITY', categoryChangedAt: readMark });

    await webhookAt('status-update-reinstated.json', 1_751_250_000);
    expect((await getTemplate(ws, couponId, env.table))!.status).toBe('PAUSED');
  });

  // The sync reads Meta's list first and saves each template after: a webhook saved in between
  // (after the list was read, before the sync read the item) told of a change the list did not
  // show yet, and the sync put the list's older state back over it, marks kept, for an hour.
  it.each([
    ['a PAUSED', 'status-update-paused.json', 'coupon_expiration_reminder', 'en', { status: 'PAUSED' }],
    ['a category change', 'category-update-completed.json', 'reservation_confirmation', 'en_US', { category: 'MARKETING' }],
  ])('%s Meta made after the sync read its list, saved before the sync reached the template, is not undone by the sync', async (_, fixture, name, language, after) => {
    const ws = await workspace();
    await syncTemplates(ws, syncDeps());
    const id = syncedTemplateId(ws, name, language);
    expect(await getTemplate(ws, id, env.table)).not.toMatchObject(after);

    let landed = false;
    const db = new Proxy(env.table.db, {
      get(target, prop) {
        if (prop !== 'send') return Reflect.get(target, prop);
        return async (command: unknown) => {
          const key = (command as { input?: { Key?: { sk?: string } } }).input?.Key;
          if (command instanceof GetCommand && key?.sk === `TPL#${id}` && !landed) {
            landed = true;
            await webhookAt(fixture, Math.floor(Date.now() / 1000));
          }
          return target.send(command as never);
        };
      },
    });
    await syncTemplates(ws, { ...syncDeps(), store: { db, tableName: env.table.tableName } });

    expect(landed).toBe(true);
    clearTemplateCache();
    expect(await getTemplate(ws, id, env.table)).toMatchObject(after);
  });

  // A mark may carry an offset (an import takes any ISO time): it is a time, not a string to sort.
  it('compares a mark written with an offset as the time it is: a later PAUSED applies', async () => {
    const ws = await workspace();
    await syncTemplates(ws, syncDeps(READ_BEFORE_TEMPLATE_FIXTURES));
    const couponId = syncedTemplateId(ws, 'coupon_expiration_reminder', 'en');
    // 01:00 UTC, before the PAUSED's 01:39:08 UTC, though "08:00+07:00" sorts after "01:39:08Z".
    await saveTemplate(ws, { ...(await getTemplate(ws, couponId, env.table))!, statusChangedAt: '2025-06-30T08:00:00+07:00' }, env.table);

    await webhook('status-update-paused.json');
    expect((await getTemplate(ws, couponId, env.table))!.status).toBe('PAUSED');
  });

  it('an entry without a time (the sandbox’s), or with one that is not Unix seconds, applies as it comes', async () => {
    const ws = await workspace();
    await syncTemplates(ws, syncDeps(READ_BEFORE_TEMPLATE_FIXTURES));
    const couponId = syncedTemplateId(ws, 'coupon_expiration_reminder', 'en');
    await webhook('status-update-reinstated.json');

    const untimed = readWhatsAppTemplateFixture<{ entry: { time?: unknown }[] }>('status-update-paused.json');
    untimed.entry[0]!.time = 'yesterday';
    await applyProviderReports(webhookEnvelopeSchema.parse(untimed), env.table);
    expect(await getTemplate(ws, couponId, env.table)).toMatchObject({ status: 'PAUSED', statusChangedAt: '2025-06-30T04:39:08.000Z' });
    delete untimed.entry[0]!.time;
    Object.assign((untimed as unknown as { entry: { changes: { value: Record<string, unknown> }[] }[] }).entry[0]!.changes[0]!.value, { event: 'REINSTATED' });
    await applyProviderReports(webhookEnvelopeSchema.parse(untimed), env.table);
    expect((await getTemplate(ws, couponId, env.table))!.status).toBe('APPROVED');
  });
});

// Meta re-delivers a backlog of one template's webhooks at once: each applies over the template as it
// read it, and is refused when another moved the mark in between; it reads again, and must still apply.
describe('a backlog of one template’s status webhooks', () => {
  it('applies the newest, answered 200, after older ones landed between each of its reads and its save', async () => {
    const ws = await workspace();
    await syncTemplates(ws, syncDeps(READ_BEFORE_TEMPLATE_FIXTURES));
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

// Decision 183 took a webhook Meta delivers again to find nothing left to change; but the hourly
// sync may have read a newer status or category in between, and the late webhook put the older one
// back (sends refused 422, a wrong template.status.updated event, the old category's credit cost).
describe('a template webhook Meta delivers again after the sync read a newer status or category', () => {
  it('does not put back the PAUSED the sync’s later read of the list replaced', async () => {
    const ws = await workspace();
    await syncTemplates(ws, syncDeps(READ_BEFORE_TEMPLATE_FIXTURES));
    const id = syncedTemplateId(ws, 'coupon_expiration_reminder', 'en');
    // PAUSED (entry.time 2025-06-30T01:39:08Z) applied; our answer to that POST failed, so Meta will deliver it again.
    await webhook('status-update-paused.json');
    expect((await getTemplate(ws, id, env.table))!.status).toBe('PAUSED');
    // Hours later the pause is over; the hourly sync reads the list now and finds it APPROVED.
    await syncTemplates(ws, syncDeps());
    expect((await getTemplate(ws, id, env.table))!.status).toBe('APPROVED');

    // Meta's retry of the PAUSED POST: older than what the sync read, it changes nothing (no event either).
    expect(await outcomeOf('status-update-paused.json')).toBe('stale');
    clearTemplateCache();
    expect((await getTemplate(ws, id, env.table))!.status).toBe('APPROVED');
  });

  it('does not apply a PAUSED first delivered (Meta’s retry after our outage) long after a sync read the template APPROVED', async () => {
    const ws = await workspace();
    const id = syncedTemplateId(ws, 'coupon_expiration_reminder', 'en');
    // The pause came while our webhook was failing; the sync, long after it ended, reads APPROVED.
    await syncTemplates(ws, syncDeps());
    expect((await getTemplate(ws, id, env.table))!.status).toBe('APPROVED');
    await webhook('status-update-paused.json');

    clearTemplateCache();
    expect((await getTemplate(ws, id, env.table))!.status).toBe('APPROVED');
  });

  it('does not put back the category, and its credit cost, the sync’s later read replaced', async () => {
    const ws = await workspace({ MARKETING: 5, UTILITY: 1, AUTHENTICATION: 1 });
    await syncTemplates(ws, syncDeps(READ_BEFORE_TEMPLATE_FIXTURES));
    const id = syncedTemplateId(ws, 'reservation_confirmation', 'en_US');
    // UTILITY to MARKETING (entry.time 2025-05-02T07:00Z), applied; Meta then moved it back, and that webhook was lost.
    await webhook('category-update-completed.json');
    expect((await getTemplate(ws, id, env.table))!.category).toBe('MARKETING');
    await syncTemplates(ws, syncDeps());
    expect((await getTemplate(ws, id, env.table))!.category).toBe('UTILITY');

    expect(await outcomeOf('category-update-completed.json')).toBe('stale');
    const after = (await getTemplate(ws, id, env.table))!;
    expect({ category: after.category, creditCostPerSend: currentVersion(after)?.creditCostPerSend }).toEqual({ category: 'UTILITY', creditCostPerSend: 1 });
  });

  it('still applies a change Meta made after the list was read, or in the minute before its read', async () => {
    const ws = await workspace();
    const listedAt = new Date();
    await syncTemplates(ws, syncDeps(listedAt));
    const id = syncedTemplateId(ws, 'coupon_expiration_reminder', 'en');
    const listedSeconds = Math.floor(listedAt.getTime() / 1000);

    // Meta's whole seconds and clocks: a change that close before the read may be one the list did not show yet.
    await webhookAt('status-update-paused.json', listedSeconds - 30);
    expect((await getTemplate(ws, id, env.table))!.status).toBe('PAUSED');
    await webhookAt('status-update-reinstated.json', listedSeconds + 5);
    expect((await getTemplate(ws, id, env.table))!.status).toBe('APPROVED');
  });

  it('lets the hourly sync set Meta’s status over a mark a clock ahead wrote (an operator’s templates sync)', async () => {
    const ws = await workspace();
    await syncTemplates(ws, syncDeps(new Date(Date.now() + 10 * 60_000)));
    const verification = syncedTemplateId(ws, 'verification_code', 'id');

    // Meta pauses it and its webhook is lost: the hourly sync, on our clock, reads it.
    const paused = structuredClone(pages);
    for (const page of paused) for (const template of page.data as { name: string; status: string }[]) if (template.name === 'verification_code') template.status = 'PAUSED';
    graph.answer = templatePages(WABA, paused);
    await syncTemplates(ws, syncDeps());
    expect((await getTemplate(ws, verification, env.table))!.status).toBe('PAUSED');
  });
});
