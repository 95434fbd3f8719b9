import { captureMetrics } from '../support/metrics';
import { randomUUID } from 'node:crypto';
import { deliverQueuedDispatch } from '../../lambdas/domain/delivery/deliver-dispatch';
import { applyProviderReports } from '../../lambdas/domain/delivery/provider-reports';
import { reconcile, RELEASED_GRACE_MS } from '../../lambdas/domain/delivery/reconcile';
import { getDispatch } from '../../lambdas/domain/messages/dispatch-repository';
import { sendTemplateMessage, type SendTemplateMessage } from '../../lambdas/domain/messages/send-message';
import { whatsAppCloudProvider } from '../../lambdas/domain/providers/whatsapp-cloud';
import { webhookEnvelopeSchema } from '../../lambdas/domain/providers/whatsapp-webhook';
import { listApprovedTemplates, previewTemplateVersion } from '../../lambdas/domain/templates/read-templates';
import { syncedTemplateId } from '../../lambdas/domain/templates/synced-template';
import { applyTemplateWebhook } from '../../lambdas/domain/templates/template-webhook';
import { graphTemplateSchema, readMessageTemplate } from '../../lambdas/domain/providers/whatsapp-templates';
import { clearTemplateCache } from '../../lambdas/domain/templates/template-lookup';
import { getTemplate, getTemplateVersion, listTemplates, saveTemplate } from '../../lambdas/domain/templates/template-repository';
import { mergeSyncedTemplate, syncEveryWorkspace, syncTemplates } from '../../lambdas/domain/templates/template-sync';
import { syncedContent } from '../../lambdas/domain/templates/component-reading';
import { clearWorkspaceCache } from '../../lambdas/domain/workspaces/workspace-lookup';
import { saveWorkspace, updateWorkspace } from '../../lambdas/domain/workspaces/workspace-repository';
import type { AppError } from '../../lambdas/shared/errors';
import { READ_BEFORE_TEMPLATE_FIXTURES, readWhatsAppTemplateFixture, startGraphStub, templatePages, type GraphAnswer, type GraphStub } from '../support/graph-stub';
import { useTableAndQueues } from '../support/sqs';
import { publishMetrics } from '../../lambdas/shared/metrics';
import { metricNames } from '../../lambdas/shared/metric-names';
import { keys } from '../../lambdas/shared/table';
import { GetCommand } from '@aws-sdk/lib-dynamodb';

/**
 * Templates from the WhatsApp Business Account (issue 14): the sync against a Graph stub serving
 * Meta-shaped pages (test/fixtures/whatsapp-templates), the template webhooks through the webhook
 * router, sends of synced templates, and an expired token holding delivery.
 */
const env = useTableAndQueues();
/** The delivery's business metrics, as CloudWatch would read them; every EMF line of the file is kept here, off the test output. */
const capture = captureMetrics();
afterAll(() => capture.restore());
const WABA = '102290129340398';
const pages = ['page-1.json', 'page-2.json', 'page-3.json'].map((name) => readWhatsAppTemplateFixture<Parameters<typeof templatePages>[1][number]>(name));

/** page-1.json's templates, to vary one; served as a single page (no `paging.next`). */
const page1 = readWhatsAppTemplateFixture<{ data: { name: string; language: string; [field: string]: unknown }[] }>('page-1.json');
const lastPage = { cursors: { after: 'QVFIUk9pYmFn1' } };

let graph: GraphStub;
beforeAll(async () => (graph = await startGraphStub()));
afterAll(() => graph.close());
beforeEach(() => {
  graph.received.length = 0;
  graph.answer = templatePages(WABA, pages);
  clearTemplateCache();
  clearWorkspaceCache();
});
afterEach(() => env.queues.receiveAll());

/** The sync's dependencies; `listedAt`, when its list is read (our clock's now without it). */
const syncDeps = (listedAt?: Date) => ({ graph: { baseUrl: graph.baseUrl, timeoutMs: 2_000 }, accessToken: () => Promise.resolve('token-1'), store: env.table, ...(listedAt ? { now: () => listedAt } : {}) });
/** One template as an edit webhook reads it from the Graph stub. */
const readTemplate = (id: string) => readMessageTemplate({ baseUrl: graph.baseUrl, timeoutMs: 2_000, accessToken: 'token-1' }, id);
/** The stub answers coupon_expiration_reminder by its id as Meta has it after an edit (edited-page.json), and the pages as before. */
function serveEditedCoupon(): void {
  const [edited] = readWhatsAppTemplateFixture<{ data: unknown[] }>('edited-page.json').data;
  const pagesAnswer = graph.answer;
  graph.answer = (request) => (new URL(request.url, 'http://graph.local').pathname === '/v26.0/1304694804498707' ? { status: 200, body: edited } : pagesAnswer(request));
}

/** Which test workspace holds the stub's account: an account belongs to one workspace at a time. */
let accountHolder: string | undefined;

/** A workspace of the test's own on the WhatsApp account (taken over from the previous test's), its credit costs the given ones. */
async function workspace(creditCostByCategory = { MARKETING: 3, UTILITY: 1, AUTHENTICATION: 1 }, whatsappBusinessAccountId = WABA): Promise<string> {
  const id = `ws-${randomUUID().slice(0, 8)}`;
  if (whatsappBusinessAccountId === WABA) {
    if (accountHolder) await updateWorkspace(accountHolder, { settings: { whatsappBusinessAccountId: null } }, new Date(), env.table);
    accountHolder = id;
  }
  await saveWorkspace(
    { id, name: id, rupiahPerCredit: 150, settings: { sendsPerMinute: 600, dedupe: 'none', provider: 'whatsapp', whatsappPhoneNumberId: `pn-${id}`, whatsappBusinessAccountId, creditCostByCategory } },
    new Date(),
    env.table,
  );
  return id;
}
const templateOf = async (ws: string, name: string, language: string) => (await getTemplate(ws, syncedTemplateId(ws, name, language), env.table))!;
const command = (workspaceId: string, templateId: string, variables: Record<string, string>): SendTemplateMessage => ({
  workspaceId,
  apiClient: { id: randomUUID(), name: 'backend' },
  to: '081234567890',
  templateId,
  variables,
  tagIds: [],
  trackingTags: [],
  now: new Date(),
});
const send = (cmd: SendTemplateMessage) => sendTemplateMessage(cmd, { store: env.table, queue: env.queues });
const rejection = (promise: Promise<unknown>) => promise.then(() => undefined, (error: unknown) => error as AppError);
const webhook = (name: string) => applyProviderReports(webhookEnvelopeSchema.parse(readWhatsAppTemplateFixture(name)), env.table);

/** Delivers the dispatch through the real WhatsApp provider to the Graph stub, which accepts it; the stub keeps the request. */
async function deliverToGraph(ws: string, dispatchId: string, wamid: string): Promise<void> {
  graph.received.length = 0;
  graph.answer = () => ({ status: 200, body: { messaging_product: 'whatsapp', messages: [{ id: wamid }] } });
  const provider = whatsAppCloudProvider({ baseUrl: graph.baseUrl, timeoutMs: 2_000, credentials: () => Promise.resolve({ accessToken: 'token-1', appSecret: 's', verifyToken: 'v' }) });
  expect(await deliverQueuedDispatch({ dispatchId, workspaceId: ws, receiveCount: 1, maxReceives: 5 }, { providerFor: () => provider, store: env.table })).toEqual({ outcome: 'sent' });
}

describe('templates sync from the WhatsApp Business Account', () => {
  it('reads every page, following paging.cursors.after while Meta gives paging.next, with the stack’s token', async () => {
    const ws = await workspace();
    expect(await syncTemplates(ws, syncDeps())).toEqual({ read: 7, created: 6, newVersions: 0, updated: 0, unchanged: 0, skipped: 1, deleted: 0 });

    expect(graph.received.map((request) => new URL(request.url, 'http://graph.local').searchParams.get('after'))).toEqual([null, 'QVFIUk9pYmFn1', 'QVFIUk9pYmFn2']);
    expect(graph.received.every((request) => request.authorization === 'Bearer token-1' && request.url.startsWith(`/v26.0/${WABA}/message_templates?`))).toBe(true);
    expect((await listTemplates(ws, env.table)).map((t) => [t.displayName, t.status, t.category]).sort()).toEqual([
      ['address_update (id)', 'PENDING', 'UTILITY'],
      ['coupon_expiration_reminder (en)', 'APPROVED', 'MARKETING'],
      ['order_delivery_update (en_US)', 'PAUSED', 'UTILITY'],
      ['reservation_confirmation (en_US)', 'APPROVED', 'UTILITY'],
      ['summer_sale (en)', 'REJECTED', 'MARKETING'],
      ['verification_code (id)', 'APPROVED', 'AUTHENTICATION'],
    ]);
  });

  it('keeps one template per name and language with a stable id: a second sync changes nothing', async () => {
    const ws = await workspace();
    await syncTemplates(ws, syncDeps());
    const before = await listTemplates(ws, env.table);
    expect(await syncTemplates(ws, syncDeps())).toEqual({ read: 7, created: 0, newVersions: 0, updated: 0, unchanged: 6, skipped: 1, deleted: 0 });
    expect(await listTemplates(ws, env.table)).toEqual(before);
    expect(before.find((t) => t.providerName === 'reservation_confirmation')!.id).toBe(syncedTemplateId(ws, 'reservation_confirmation', 'en_US'));
  });

  it('turns named body parameters, an image header and URL / quick-reply buttons into typed variables', async () => {
    const ws = await workspace();
    await syncTemplates(ws, syncDeps());
    const [version] = (await templateOf(ws, 'reservation_confirmation', 'en_US')).versions;
    expect(version).toMatchObject({ version: 1, status: 'READY', category: 'UTILITY', creditCostPerSend: 1 });
    expect(version!.variableDefinitions).toEqual([
      { name: 'number_of_guests', type: 'text', required: true },
      { name: 'day', type: 'text', required: true },
      { name: 'date', type: 'text', required: true },
      { name: 'time', type: 'text', required: true },
      { name: 'header_image', type: 'image', required: true },
      { name: 'button_0', type: 'url_suffix', required: true },
      { name: 'button_2', type: 'payload', required: false },
    ]);
  });

  it('turns positional parameters, a text header, copy-code, OTP and location parts into variables, and costs by category', async () => {
    const ws = await workspace();
    await syncTemplates(ws, syncDeps());
    const coupon = (await templateOf(ws, 'coupon_expiration_reminder', 'en')).versions[0]!;
    expect(coupon.creditCostPerSend).toBe(3);
    expect(coupon.variableDefinitions.map(({ name, type, required }) => `${name}:${type}:${required}`)).toEqual([
      '1:text:true',
      '2:text:true',
      'header_1:text:true',
      'button_0:coupon_code:true',
      'button_1:payload:false',
    ]);
    const otp = (await templateOf(ws, 'verification_code', 'id')).versions[0]!;
    // Meta returns an authentication template's one-time-password button as a URL button to its OTP link; the body's {{1}} is the same code.
    expect(otp.variableDefinitions.map(({ name, type }) => `${name}:${type}`)).toEqual(['1:otp_code', 'button_0:otp_code']);
    const delivery = (await templateOf(ws, 'order_delivery_update', 'en_US')).versions[0]!;
    expect(delivery.variableDefinitions.filter((v) => v.name.startsWith('header_')).map(({ name, required }) => `${name}:${required}`)).toEqual([
      'header_latitude:true',
      'header_longitude:true',
      'header_location_name:false',
      'header_location_address:false',
    ]);
  });

  it('makes an approved template’s changed content a new version; the earlier one stays readable, SUPERSEDED', async () => {
    const ws = await workspace();
    await syncTemplates(ws, syncDeps());
    const first = (await templateOf(ws, 'coupon_expiration_reminder', 'en')).versions[0]!;

    graph.answer = templatePages(WABA, [readWhatsAppTemplateFixture('edited-page.json')]);
    expect(await syncTemplates(ws, syncDeps())).toMatchObject({ read: 1, newVersions: 1 });

    const template = await templateOf(ws, 'coupon_expiration_reminder', 'en');
    expect(template.versions.map((v) => [v.version, v.status, v.variableDefinitions.filter((d) => d.required).length, v.disabledAt !== undefined])).toEqual([
      [1, 'SUPERSEDED', 4, true],
      [2, 'READY', 5, false],
    ]);
    expect(await getTemplateVersion(ws, first.id, env.table)).toMatchObject({ version: { version: 1, body: first.body } });
    expect(await previewTemplateVersion(ws, first.id, [{ name: '1', value: 'SUMMER20' }, { name: '2', value: '10' }, { name: 'header_1', value: 'Budi' }, { name: 'button_0', value: 'SUMMER20' }], env.table)).toMatchObject({
      preview: expect.stringContaining('your exclusive coupon code, SUMMER20, *expires in only 10 days!*'),
    });
    // Sends use the newest version: its third body variable is required.
    const refused = await rejection(send(command(ws, template.id, { '1': 'SUMMER20', '2': '10', header_1: 'Budi', button_0: 'SUMMER20' })));
    expect(refused).toMatchObject({ code: 'missing_variables', message: expect.stringContaining('3') });
  });

  it('syncs a template whose name uses Meta’s 512 characters (“Create and manage templates”, limitations)', async () => {
    const ws = await workspace();
    const [first, ...rest] = page1.data;
    const long = { ...first!, name: `reservation_${'x'.repeat(500)}`, id: '1000000000000001' };
    graph.answer = templatePages(WABA, [{ data: [long, ...rest], paging: lastPage }]);

    expect(await syncTemplates(ws, syncDeps())).toMatchObject({ read: 2, created: 2, skipped: 0 });
    expect((await templateOf(ws, long.name, long.language)).displayName).toBe(`${long.name} (${long.language})`);
  });

  it('skips a template it cannot store, logging why, and syncs the templates after it', async () => {
    const ws = await workspace();
    const [first, ...rest] = page1.data;
    // A named placeholder longer than the 64 characters a variable name may have.
    const unstorable = { ...first!, name: 'long_placeholder', id: '1000000000000002', components: [{ type: 'BODY', text: `Hello {{${'n'.repeat(70)}}}`, example: { body_text_named_params: [{ param_name: 'n'.repeat(70), example: 'Budi' }] } }] };
    graph.answer = templatePages(WABA, [{ data: [unstorable, ...rest], paging: lastPage }]);

    expect(await syncTemplates(ws, syncDeps())).toMatchObject({ read: 2, created: 1, skipped: 1 });
    expect(await getTemplate(ws, syncedTemplateId(ws, 'long_placeholder', unstorable.language), env.table)).toBeUndefined();
    expect(await templateOf(ws, rest[0]!.name, rest[0]!.language)).toMatchObject({ status: 'APPROVED' });
  });

  it('stops sending a stored template once Meta edits it into content it cannot store: its versions superseded, its sends 422 template_not_ready, also after Meta changes its category', async () => {
    const ws = await workspace();
    const [first] = page1.data;
    const positional = { ...first!, name: 'order_notice', id: '1000000000000004', parameter_format: 'POSITIONAL', components: [{ type: 'BODY', text: 'Your order {{1}} is ready', example: { body_text: [['A-1']] } }] };
    graph.answer = templatePages(WABA, [{ data: [positional], paging: lastPage }]);
    expect(await syncTemplates(ws, syncDeps())).toMatchObject({ created: 1 });
    const long = 'n'.repeat(70);
    const edited = { ...positional, parameter_format: 'NAMED', components: [{ type: 'BODY', text: `Your order {{${long}}} is ready`, example: { body_text_named_params: [{ param_name: long, example: 'A-1' }] } }] };
    graph.answer = templatePages(WABA, [{ data: [edited], paging: lastPage }]);

    expect(await syncTemplates(ws, syncDeps())).toMatchObject({ skipped: 1 });

    const template = await templateOf(ws, 'order_notice', first!.language);
    expect(template.versions.map((version) => version.status)).toEqual(['SUPERSEDED']);
    clearTemplateCache();
    expect(await rejection(send(command(ws, template.id, { '1': 'A-1' })))).toMatchObject({ status: 422, code: 'template_not_ready' });
    expect(await env.queues.receiveAll()).toEqual([]);

    // Meta re-categorises it (Meta's content is still the one we could not store), and approves it again.
    const recategorised = readWhatsAppTemplateFixture<{ entry: { changes: { value: Record<string, unknown> }[] }[] }>('category-update-completed.json');
    Object.assign(recategorised.entry[0]!.changes[0]!.value, { message_template_id: 1000000000000004, message_template_name: 'order_notice', message_template_language: first!.language });
    await applyProviderReports(webhookEnvelopeSchema.parse(recategorised), env.table);
    const reapproved = readWhatsAppTemplateFixture<{ entry: { changes: { value: Record<string, unknown> }[] }[] }>('status-update-reinstated.json');
    Object.assign(reapproved.entry[0]!.changes[0]!.value, { message_template_id: 1000000000000004, message_template_name: 'order_notice', message_template_language: first!.language });
    await applyProviderReports(webhookEnvelopeSchema.parse(reapproved), env.table);

    // No stored content stands for it: none comes back sendable.
    expect((await templateOf(ws, 'order_notice', first!.language)).versions.map((version) => version.status)).toEqual(['SUPERSEDED']);
    clearTemplateCache();
    expect(await rejection(send(command(ws, template.id, { '1': 'A-1' })))).toMatchObject({ status: 422, code: 'template_not_ready' });
    expect(await env.queues.receiveAll()).toEqual([]);
  });

  it('keeps a template’s newest 90 versions once Meta has edited it more often: the oldest superseded one leaves, and the new content is sent', async () => {
    const ws = await workspace();
    const [first] = page1.data;
    const edition = (n: number) => ({ ...first!, name: 'weekly_digest', id: '1000000000000003', parameter_format: 'POSITIONAL', components: [{ type: 'BODY', text: `Digest edition ${n}: {{1}}`, example: { body_text: [['news']] } }] });
    // 90 approved editions, as 90 syncs would have stored them (Meta allows 10 edits a month).
    const id = syncedTemplateId(ws, 'weekly_digest', first!.language);
    let stored: Parameters<typeof mergeSyncedTemplate>[0];
    for (let n = 1; n <= 90; n += 1) {
      const graphTemplate = graphTemplateSchema.parse(edition(n));
      stored = mergeSyncedTemplate(stored, { id, graph: graphTemplate, status: 'APPROVED', category: 'UTILITY', content: syncedContent(graphTemplate)!, creditCostPerSend: 1 }, new Date(Date.UTC(2026, 0, n))).template;
    }
    await saveTemplate(ws, stored!, env.table);
    graph.answer = templatePages(WABA, [{ data: [edition(91)], paging: lastPage }]);
    expect(await syncTemplates(ws, syncDeps())).toMatchObject({ read: 1, newVersions: 1, skipped: 0 });

    const template = await templateOf(ws, 'weekly_digest', first!.language);
    expect(template.versions).toHaveLength(90);
    expect([template.versions[0]!.version, template.versions.at(-1)!.version]).toEqual([2, 91]);
    expect(template.versions.filter((version) => version.status === 'READY').map((version) => version.body)).toEqual(['Digest edition 91: {{1}}']);
  });

  it('refuses a workspace without an account, and a refused token, saying so', async () => {
    const ws = await workspace();
    await saveWorkspace({ id: `${ws}-x`, name: 'x', rupiahPerCredit: 1 }, new Date(), env.table);
    await expect(syncTemplates(`${ws}-x`, syncDeps())).rejects.toThrow(/has no whatsappBusinessAccountId/);
    await expect(syncTemplates(ws, { ...syncDeps(), accessToken: () => Promise.resolve('expired') })).rejects.toMatchObject({ kind: 'credentials', code: '190' });
  });

  it('the scheduled run syncs every workspace that names an account; one failing does not stop the others', async () => {
    const unknownToMeta = await workspace(undefined, '555000111');
    const synced = await workspace();
    await expect(syncEveryWorkspace(syncDeps())).rejects.toThrow(new RegExp(`Template sync failed for 1 of \\d+ workspace\\(s\\): ${unknownToMeta}$`));
    expect(await listTemplates(synced, env.table)).toHaveLength(6);
    expect(await listTemplates(unknownToMeta, env.table)).toEqual([]);
  });
});

describe('templates Meta no longer lists (deleted in WhatsApp Manager, decision 199)', () => {
  /** Meta's pages without the named templates: Meta's list once they were deleted. */
  const pagesWithout = (...names: string[]) => pages.map((page) => ({ ...page, data: page.data.filter((item) => !names.includes((item as { name: string }).name)) }));
  const reservationVariables = { number_of_guests: '4', day: 'Saturday', date: 'August 30th', time: '7:30 pm', header_image: 'https://example.com/r.jpg', button_0: 'R-1042' };

  it('marks a synced template DELETED once a whole read no longer lists it: unlisted, its sends 422 template_not_found; a template imported into the workspace stays', async () => {
    const ws = await workspace();
    await syncTemplates(ws, syncDeps());
    const imported = {
      id: randomUUID(),
      displayName: 'Order shipped',
      status: 'APPROVED',
      providerName: 'order_shipped',
      language: 'id',
      versions: [{ id: randomUUID(), version: 1, status: 'READY', body: 'Halo {{name}}', variableDefinitions: [{ name: 'name', type: 'text', required: true }], creditCostPerSend: 1, createdAt: '2026-01-05T03:00:00Z' }],
    };
    await saveTemplate(ws, imported, env.table);
    graph.answer = templatePages(WABA, pagesWithout('reservation_confirmation'));

    const summary = await syncTemplates(ws, syncDeps());

    const reservation = await templateOf(ws, 'reservation_confirmation', 'en_US');
    expect(reservation.status).toBe('DELETED');
    expect(summary).toEqual({ read: 6, created: 0, newVersions: 0, updated: 0, unchanged: 5, skipped: 1, deleted: 1 });
    expect((await listApprovedTemplates(ws, env.table)).map((template) => template.displayName).sort()).toEqual(['Order shipped', 'coupon_expiration_reminder (en)', 'verification_code (id)']);
    clearTemplateCache();
    expect(await rejection(send(command(ws, reservation.id, reservationVariables)))).toMatchObject({ status: 422, code: 'template_not_found' });
    expect(await env.queues.receiveAll()).toEqual([]);
    // Already DELETED: the next sync changes nothing.
    expect(await syncTemplates(ws, syncDeps())).toMatchObject({ unchanged: 5, deleted: 0 });
  });

  // A whole list that is empty is more likely an account or token that sees none (a business account id set wrong,
  // Meta's own fault) than every template deleted at once: taken as the truth, it stopped every send of the workspace.
  it('retires nothing after a whole read that listed no template at all', async () => {
    const ws = await workspace();
    await syncTemplates(ws, syncDeps());
    graph.answer = templatePages(WABA, [{ data: [] }]);

    expect(await syncTemplates(ws, syncDeps())).toMatchObject({ read: 0, deleted: 0 });
    expect((await templateOf(ws, 'reservation_confirmation', 'en_US')).status).toBe('APPROVED');
  });

  it('retires nothing after a read that stopped part-way, or that listed an item it could not name; an item it could name but not read is still Meta’s', async () => {
    const ws = await workspace();
    await syncTemplates(ws, syncDeps());
    const withoutReservation = templatePages(WABA, pagesWithout('reservation_confirmation'));
    const after = (request: { url: string }) => new URL(request.url, 'http://graph.local').searchParams.get('after');
    graph.answer = (request) => (after(request) === 'QVFIUk9pYmFn2' ? { status: 500, body: { error: { code: 2, message: 'Service temporarily unavailable' } } } : withoutReservation(request));
    await expect(syncTemplates(ws, syncDeps())).rejects.toThrow();
    // A next page with no cursor to it: the list cannot be read whole.
    graph.answer = templatePages(WABA, [{ data: page1.data.slice(1), paging: { next: 'https://graph.facebook.com/v26.0/next' } }]);
    await expect(syncTemplates(ws, syncDeps())).rejects.toMatchObject({ code: 'unreadable_page' });
    graph.answer = templatePages(WABA, [{ data: [...page1.data.slice(1), { id: '1000000000000009', status: 'APPROVED' }], paging: lastPage }]);
    expect(await syncTemplates(ws, syncDeps())).toMatchObject({ skipped: 1, deleted: 0 });
    expect((await listTemplates(ws, env.table)).map((template) => template.status).sort()).toEqual(['APPROVED', 'APPROVED', 'APPROVED', 'PAUSED', 'PENDING', 'REJECTED']);

    // Named but unreadable (no category): the reservation stays; what the list does not name goes.
    graph.answer = templatePages(WABA, [{ data: [...page1.data.slice(1), { id: '1000000000000010', name: 'reservation_confirmation', language: 'en_US', status: 'APPROVED' }], paging: lastPage }]);
    expect(await syncTemplates(ws, syncDeps())).toMatchObject({ skipped: 1, deleted: 4 });
    expect((await listTemplates(ws, env.table)).map((template) => [template.providerName, template.status]).sort()).toEqual([
      ['address_update', 'DELETED'],
      ['coupon_expiration_reminder', 'APPROVED'],
      ['order_delivery_update', 'DELETED'],
      ['reservation_confirmation', 'APPROVED'],
      ['summer_sale', 'DELETED'],
      ['verification_code', 'DELETED'],
    ]);
  });

  it('keeps a template a webhook changed or read after the list was asked for, until a list asked for later still lacks it', async () => {
    const ws = await workspace();
    await syncTemplates(ws, syncDeps());
    // Meta pauses the coupon as the list is asked for, and says so at once.
    const paused = readWhatsAppTemplateFixture<{ entry: { time: number }[] }>('status-update-paused.json');
    paused.entry[0]!.time = Math.floor(Date.now() / 1000);
    await applyProviderReports(webhookEnvelopeSchema.parse(paused), env.table);
    graph.answer = templatePages(WABA, pagesWithout('coupon_expiration_reminder', 'reservation_confirmation'));
    expect(await syncTemplates(ws, syncDeps())).toMatchObject({ deleted: 1 });
    expect([(await templateOf(ws, 'coupon_expiration_reminder', 'en')).status, (await templateOf(ws, 'reservation_confirmation', 'en_US')).status]).toEqual(['PAUSED', 'DELETED']);

    // A list asked for five minutes ago, before a webhook read the template (approved meanwhile): the list does not have it yet.
    const asked = [new Date(Date.now() - 5 * 60_000)];
    graph.answer = templatePages(WABA, pagesWithout('coupon_expiration_reminder', 'reservation_confirmation', 'verification_code'));
    expect(await syncTemplates(ws, { ...syncDeps(), now: () => asked.shift() ?? new Date() })).toMatchObject({ deleted: 0 });
    expect((await templateOf(ws, 'verification_code', 'id')).status).toBe('APPROVED');

    // Asked for past the pause's minute: both go.
    expect(await syncTemplates(ws, { ...syncDeps(), now: () => new Date(Date.now() + 2 * 60_000) })).toMatchObject({ deleted: 2 });
    expect([(await templateOf(ws, 'coupon_expiration_reminder', 'en')).status, (await templateOf(ws, 'verification_code', 'id')).status]).toEqual(['DELETED', 'DELETED']);
    // A reinstatement of Meta's from before, delivered again late, is older than the deletion.
    const reinstated = readWhatsAppTemplateFixture<{ entry: { changes: { value: Record<string, unknown> }[] }[] }>('status-update-reinstated.json');
    Object.assign(reinstated.entry[0]!.changes[0]!.value, { message_template_name: 'verification_code', message_template_language: 'id' });
    await applyProviderReports(webhookEnvelopeSchema.parse(reinstated), env.table);
    expect((await templateOf(ws, 'verification_code', 'id')).status).toBe('DELETED');
  });

  // A template approved before any sync saw it is read whole by its APPROVED webhook (decision 147);
  // Meta's list asked for in the minute after may not show it yet (found by the skeptic review of decision 199).
  it('keeps a template its APPROVED webhook read ten seconds before the list was asked for', async () => {
    const ws = await workspace();
    const listAskedAt = new Date();
    graph.answer = templatePages(WABA, pagesWithout('reservation_confirmation'));
    await syncTemplates(ws, syncDeps(new Date(listAskedAt.getTime() - 3_600_000)));
    const approvedAt = new Date(listAskedAt.getTime() - 10_000);
    const reservation = graphTemplateSchema.parse(page1.data.find((item) => item.name === 'reservation_confirmation'));
    const webhook = {
      field: 'message_template_status_update' as const,
      time: Math.floor(approvedAt.getTime() / 1000),
      value: { event: 'APPROVED', message_template_id: Number(reservation.id), message_template_name: 'reservation_confirmation', message_template_language: 'en_US', reason: 'NONE', message_template_category: 'UTILITY' },
    };
    expect(await applyTemplateWebhook(WABA, webhook, env.table, approvedAt, async () => reservation)).toBe('applied');
    expect((await templateOf(ws, 'reservation_confirmation', 'en_US')).status).toBe('APPROVED');

    expect(await syncTemplates(ws, syncDeps(listAskedAt))).toMatchObject({ deleted: 0 });
    expect((await templateOf(ws, 'reservation_confirmation', 'en_US')).status).toBe('APPROVED');
  });

  // Deleted in WhatsApp Manager and submitted again under the same name and language, with new
  // content: Meta's APPROVED names the new template's id. Only a template no sync had seen was read,
  // so the DELETED row was approved with the deleted one's content and Meta id, and sends asked
  // for the old variables until the hourly sync (found by the skeptic review of session 35).
  it('reads the re-created template its APPROVED webhook names, rather than approving the deleted one’s content', async () => {
    const ws = await workspace();
    const now = Date.now();
    await syncTemplates(ws, syncDeps(new Date(now - 7_200_000)));
    graph.answer = templatePages(WABA, pagesWithout('reservation_confirmation'));
    await syncTemplates(ws, syncDeps(new Date(now - 3_600_000)));
    const old = await templateOf(ws, 'reservation_confirmation', 'en_US');
    expect(old.status).toBe('DELETED');

    const recreated = graphTemplateSchema.parse({
      name: 'reservation_confirmation',
      parameter_format: 'NAMED',
      components: [{ type: 'BODY', text: 'Your table for {{guests}} is booked for {{slot}}.', example: { body_text_named_params: [{ param_name: 'guests', example: '4' }, { param_name: 'slot', example: 'Saturday 7:30 pm' }] } }],
      language: 'en_US',
      status: 'APPROVED',
      category: 'UTILITY',
      id: '1999999999999999',
    });
    expect(recreated.id).not.toBe(old.providerTemplateId);
    const approvedAt = new Date(now - 60_000);
    const webhook = {
      field: 'message_template_status_update' as const,
      time: Math.floor(approvedAt.getTime() / 1000),
      value: { event: 'APPROVED', message_template_id: Number(recreated.id), message_template_name: 'reservation_confirmation', message_template_language: 'en_US', reason: 'NONE', message_template_category: 'UTILITY' },
    };
    const reads: string[] = [];
    const outcome = await applyTemplateWebhook(WABA, webhook, env.table, new Date(now), async (templateId) => (reads.push(templateId), recreated));

    expect([outcome, reads]).toEqual(['applied', [recreated.id]]);
    const stored = await templateOf(ws, 'reservation_confirmation', 'en_US');
    expect([stored.status, stored.providerTemplateId]).toEqual(['APPROVED', recreated.id]);
    clearTemplateCache();
    await expect(send(command(ws, stored.id, { guests: '4', slot: 'Saturday 7:30 pm' }))).resolves.toMatchObject({ status: 'queued' });

    // Meta delivers the deleted template's approval of days ago again (decision 183): older than the
    // live template's approval, it is stale, and is not read back over it (found by the skeptic review of session 37).
    const lateAt = new Date(now - 3 * 86_400_000);
    const late = { ...webhook, time: Math.floor(lateAt.getTime() / 1000), value: { ...webhook.value, message_template_id: Number(old.providerTemplateId) } };
    const deleted = graphTemplateSchema.parse({ ...recreated, id: old.providerTemplateId, status: 'DELETED' });
    expect(await applyTemplateWebhook(WABA, late, env.table, new Date(now), async (templateId) => (reads.push(templateId), deleted))).toBe('stale');
    expect(reads).toEqual([recreated.id]);
    const kept = await templateOf(ws, 'reservation_confirmation', 'en_US');
    expect([kept.status, kept.providerTemplateId]).toEqual(['APPROVED', recreated.id]);
  });
});

describe('sends of synced templates', () => {
  it('answers 422 template_not_ready for a template Meta paused, and template_not_found for one under review', async () => {
    const ws = await workspace();
    await syncTemplates(ws, syncDeps());
    const paused = await templateOf(ws, 'order_delivery_update', 'en_US');
    expect(await rejection(send(command(ws, paused.id, { '1': 'Mark', '2': '566701', header_latitude: '-6.2', header_longitude: '106.8' })))).toMatchObject({
      status: 422,
      code: 'template_not_ready',
    });
    const pending = await templateOf(ws, 'address_update', 'id');
    expect(await rejection(send(command(ws, pending.id, { '1': 'Budi', '2': 'Jl. Sudirman 1' })))).toMatchObject({ status: 422, code: 'template_not_found' });
  });

  it('carries the header and button parameters to WhatsApp, named body parameters with their names', async () => {
    const ws = await workspace();
    await syncTemplates(ws, syncDeps());
    const reservation = await templateOf(ws, 'reservation_confirmation', 'en_US');
    const { dispatchId } = await send(
      command(ws, reservation.id, { number_of_guests: '4', day: 'Saturday', date: 'August 30th', time: '7:30 pm', header_image: 'https://example.com/t.jpg', button_0: 'R-1042' }),
    );
    expect((await getDispatch(ws, dispatchId, env.table))!.creditCost).toBe(1);

    await deliverToGraph(ws, dispatchId, 'wamid.synced');
    expect(graph.received[0]!.url).toBe(`/v26.0/pn-${ws}/messages`);
    expect((graph.received[0]!.body as { template: unknown }).template).toEqual({
      name: 'reservation_confirmation',
      language: { code: 'en_US' },
      components: [
        { type: 'header', parameters: [{ type: 'image', image: { link: 'https://example.com/t.jpg' } }] },
        {
          type: 'body',
          parameters: [
            { type: 'text', parameter_name: 'number_of_guests', text: '4' },
            { type: 'text', parameter_name: 'day', text: 'Saturday' },
            { type: 'text', parameter_name: 'date', text: 'August 30th' },
            { type: 'text', parameter_name: 'time', text: '7:30 pm' },
          ],
        },
        { type: 'button', sub_type: 'url', index: 0, parameters: [{ type: 'text', text: 'R-1042' }] },
      ],
    });
  });

  // WhatsApp fills {{n}} with the n-th body parameter, wherever {{n}} stands in the text, and a placeholder used twice
  // takes one parameter. Listed as they appear, the gate and the seat were swapped in every message.
  it('sends a positional body’s parameters by number, each once, whatever order its text uses them in', async () => {
    const ws = await workspace();
    const gateChange = {
      id: '900000000000001',
      name: 'gate_change',
      language: 'en',
      status: 'APPROVED',
      category: 'UTILITY',
      parameter_format: 'POSITIONAL',
      components: [{ type: 'BODY', text: 'Hi {{1}}, your flight now boards at gate {{3}}; your seat stays {{2}}. See you at gate {{3}}!', example: { body_text: [['Sari', '12A', 'B7']] } }],
    };
    graph.answer = templatePages(WABA, [{ data: [gateChange] }]);
    await syncTemplates(ws, syncDeps());
    const { dispatchId } = await send(command(ws, (await templateOf(ws, 'gate_change', 'en')).id, { '1': 'Sari', '2': '12A', '3': 'B7' }));

    await deliverToGraph(ws, dispatchId, 'wamid.gate');
    expect((graph.received[0]!.body as { template: unknown }).template).toEqual({
      name: 'gate_change',
      language: { code: 'en' },
      components: [{ type: 'body', parameters: [{ type: 'text', text: 'Sari' }, { type: 'text', text: '12A' }, { type: 'text', text: 'B7' }] }],
    });
  });
});

describe('templates with parts a send cannot fill, limited-time offers and carousels (decisions 143, 145)', () => {
  const formats = () => (graph.answer = templatePages(WABA, [readWhatsAppTemplateFixture('formats-page.json')]));
  /** A workspace of the test's own, synced from the formats page, and one of its templates. */
  const syncedFormat = async (name: string) => {
    const ws = await workspace();
    formats();
    await syncTemplates(ws, syncDeps());
    return { ws, template: await templateOf(ws, name, 'en_US') };
  };
  const offerVariables = { '1': 'Pablo', '2': 'CARIBE25', header_image: 'https://example.com/caribbean.png', offer_expiration_time_ms: '1893456000000', button_0: 'CARIBE25', button_1: 'n3mtql' };

  it('marks a catalog’s version UNSUPPORTED, and reads an offer’s end, a carousel’s cards and a Flow button as sendable', async () => {
    const ws = await workspace();
    formats();
    expect(await syncTemplates(ws, syncDeps())).toEqual({ read: 4, created: 4, newVersions: 0, updated: 0, unchanged: 0, skipped: 0, deleted: 0 });
    const version = async (name: string) => (await templateOf(ws, name, 'en_US')).versions;
    const [carousel] = await version('summer_succulents_carousel');
    expect(carousel).toMatchObject({ status: 'READY' });
    expect(carousel!.variableDefinitions.map(({ name, type, required }) => `${name}:${type}:${required}`)).toEqual([
      '1:text:true',
      '2:text:true',
      '3:text:true',
      'card_0_header_image:image:true',
      'card_0_1:text:true',
      'card_0_button_0:payload:true',
      'card_0_button_1:url_suffix:true',
      'card_1_header_image:image:true',
      'card_1_1:text:true',
      'card_1_button_0:payload:true',
      'card_1_button_1:url_suffix:true',
    ]);
    expect(await version('intro_catalog_offer')).toEqual([expect.objectContaining({ version: 1, status: 'UNSUPPORTED', unsupportedParts: ['CATALOG button'] })]);
    expect((await version('intro_catalog_offer'))[0]!.readyAt).toBeUndefined();
    const [offer] = await version('limited_time_offer_caribbean_pkg_2023');
    expect(offer).toMatchObject({ status: 'READY', readyAt: expect.any(String) });
    expect(offer!.unsupportedParts).toBeUndefined();
    expect(offer!.variableDefinitions.map(({ name, type, required }) => `${name}:${type}:${required}`)).toEqual([
      '1:text:true',
      '2:text:true',
      'header_image:image:true',
      'offer_expiration_time_ms:timestamp_ms:true',
      'button_0:coupon_code:true',
      'button_1:url_suffix:true',
    ]);
    expect(await version('sign_up_flow')).toEqual([expect.objectContaining({ status: 'READY', variableDefinitions: [{ name: '1', type: 'text', required: true }] })]);
  });

  it('keeps a catalog template UNSUPPORTED when Meta’s approval comes by webhook after review', async () => {
    const ws = await workspace();
    const page = readWhatsAppTemplateFixture<{ data: { name: string; status: string }[] }>('formats-page.json');
    page.data.find((t) => t.name === 'intro_catalog_offer')!.status = 'PENDING';
    graph.answer = templatePages(WABA, [page]);
    await syncTemplates(ws, syncDeps(READ_BEFORE_TEMPLATE_FIXTURES));
    const pending = await templateOf(ws, 'intro_catalog_offer', 'en_US');
    expect(pending.versions.map((v) => v.status)).toEqual(['PENDING']);

    // Meta's approval of that template: its own id (another's would be a template to read, decision 216).
    const approval = readWhatsAppTemplateFixture<{ entry: { changes: { value: Record<string, unknown> }[] }[] }>('status-update-reinstated.json');
    Object.assign(approval.entry[0]!.changes[0]!.value, { event: 'APPROVED', message_template_id: Number(pending.providerTemplateId), message_template_name: 'intro_catalog_offer', message_template_language: 'en_US' });
    await applyProviderReports(webhookEnvelopeSchema.parse(approval), env.table);
    const approved = await templateOf(ws, 'intro_catalog_offer', 'en_US');
    expect([approved.status, approved.versions.map((v) => [v.status, v.readyAt])]).toEqual(['APPROVED', [['UNSUPPORTED', undefined]]]);
  });

  it('answers a send of a catalog template 422 template_not_ready naming the part, and writes and queues nothing', async () => {
    const { ws, template: catalog } = await syncedFormat('intro_catalog_offer');
    const refused = await rejection(send(command(ws, catalog.id, { '1': '100', '2': '400', '3': '3' })));
    expect(refused).toMatchObject({ status: 422, code: 'template_not_ready', message: `content.templateId: template ${catalog.id} has parts this API cannot send (CATALOG button), so WhatsApp would refuse every message` });
    expect(await env.queues.receiveAll()).toEqual([]);
  });

  it('sends an offer’s end as WhatsApp’s limited_time_offer component, between the body and the buttons', async () => {
    const { ws, template: offer } = await syncedFormat('limited_time_offer_caribbean_pkg_2023');
    const { dispatchId } = await send(command(ws, offer.id, offerVariables));

    await deliverToGraph(ws, dispatchId, 'wamid.offer');
    expect((graph.received[0]!.body as { template: unknown }).template).toEqual({
      name: 'limited_time_offer_caribbean_pkg_2023',
      language: { code: 'en_US' },
      components: [
        { type: 'header', parameters: [{ type: 'image', image: { link: 'https://example.com/caribbean.png' } }] },
        { type: 'body', parameters: [{ type: 'text', text: 'Pablo' }, { type: 'text', text: 'CARIBE25' }] },
        { type: 'limited_time_offer', parameters: [{ type: 'limited_time_offer', limited_time_offer: { expiration_time_ms: 1893456000000 } }] },
        { type: 'button', sub_type: 'copy_code', index: 0, parameters: [{ type: 'coupon_code', coupon_code: 'CARIBE25' }] },
        { type: 'button', sub_type: 'url', index: 1, parameters: [{ type: 'text', text: 'n3mtql' }] },
      ],
    });
  });

  /** One card as Meta's carousel send takes it: the image, the card body's code, the quick reply's payload and the URL's suffix. */
  const expectedCard = (cardIndex: number, image: string, payload: string, suffix: string) => ({
    card_index: cardIndex,
    components: [
      { type: 'header', parameters: [{ type: 'image', image: { link: image } }] },
      { type: 'body', parameters: [{ type: 'text', text: '30OFF' }] },
      { type: 'button', sub_type: 'quick_reply', index: 0, parameters: [{ type: 'payload', payload }] },
      { type: 'button', sub_type: 'url', index: 1, parameters: [{ type: 'text', text: suffix }] },
    ],
  });

  it('sends a carousel’s cards as WhatsApp’s carousel component, each with its card_index, header, body and buttons', async () => {
    const { ws, template: carousel } = await syncedFormat('summer_succulents_carousel');
    const cards = {
      card_0_header_image: 'https://example.com/aloe.png',
      card_0_1: '30OFF',
      card_0_button_0: 'more-aloe',
      card_0_button_1: 'aloe_vera_30',
      card_1_header_image: 'https://example.com/ghost.png',
      card_1_1: '30OFF',
      card_1_button_0: 'more-ghost',
      card_1_button_1: 'ghost_plant_30',
    };
    const { dispatchId } = await send(command(ws, carousel.id, { '1': 'Pablo', '2': '30%', '3': '30OFF', ...cards }));

    await deliverToGraph(ws, dispatchId, 'wamid.carousel');
    expect((graph.received[0]!.body as { template: unknown }).template).toEqual({
      name: 'summer_succulents_carousel',
      language: { code: 'en_US' },
      components: [
        { type: 'body', parameters: [{ type: 'text', text: 'Pablo' }, { type: 'text', text: '30%' }, { type: 'text', text: '30OFF' }] },
        {
          type: 'carousel',
          cards: [expectedCard(0, 'https://example.com/aloe.png', 'more-aloe', 'aloe_vera_30'), expectedCard(1, 'https://example.com/ghost.png', 'more-ghost', 'ghost_plant_30')],
        },
      ],
    });
  });

  it('refuses values WhatsApp would refuse for their type, 422 validation_failed naming each, before anything is written', async () => {
    const { ws, template: offer } = await syncedFormat('limited_time_offer_caribbean_pkg_2023');
    const refused = await rejection(send(command(ws, offer.id, { ...offerVariables, header_image: 'caribbean.png', offer_expiration_time_ms: '2030-01-01' })));
    expect(refused).toMatchObject({
      status: 422,
      code: 'validation_failed',
      message: 'content.variables: header_image: must be an http or https link to the image; offer_expiration_time_ms: must be Unix time in milliseconds (digits)',
    });
    expect(await env.queues.receiveAll()).toEqual([]);
    const preview = rejection(previewTemplateVersion(ws, offer.versions[0]!.id, Object.entries({ ...offerVariables, header_image: 'ftp://example.com/c.png' }).map(([name, value]) => ({ name, value })), env.table));
    expect(await preview).toMatchObject({ code: 'validation_failed', message: 'variables: header_image: must be an http or https link to the image' });
  });

  // A carousel's body goes with its cards, and each card's body with the card's header: both are
  // body text with other components (Meta's parameter object, 1024), and a card's URL suffix is a text parameter.
  it('refuses a carousel’s body or card body value over 1024 characters, and a card’s URL suffix not on one line', async () => {
    const { ws, template: carousel } = await syncedFormat('summer_succulents_carousel');
    const variables = {
      '1': 'Pablo',
      '2': '30%',
      '3': '30OFF',
      ...Object.fromEntries([0, 1].flatMap((c) => [[`card_${c}_header_image`, 'https://example.com/p.png'], [`card_${c}_1`, '30OFF'], [`card_${c}_button_0`, 'more'], [`card_${c}_button_1`, 'plant_30']])),
    };
    const refused = await rejection(send(command(ws, carousel.id, { ...variables, '1': 'P'.repeat(1025), card_1_1: 'C'.repeat(1025), card_0_button_1: 'aloe\nvera' })));
    expect(refused).toMatchObject({
      status: 422,
      code: 'validation_failed',
      message:
        'content.variables: 1: must be text on one line of at most 1024 characters, with no tab and at most four spaces in a row; card_0_button_1: must be text on one line, not empty, with no tab and at most four spaces in a row; card_1_1: must be text on one line of at most 1024 characters, with no tab and at most four spaces in a row',
    });
    expect(await env.queues.receiveAll()).toEqual([]);
    expect(await send(command(ws, carousel.id, { ...variables, '1': 'P'.repeat(1024), card_1_1: 'C'.repeat(1024) }))).toMatchObject({ status: 'queued' });
  });
});

describe('template webhooks, applied at once through the webhook router', () => {
  it('pauses a template (sends answer template_not_ready) and reinstates it', async () => {
    const ws = await workspace();
    await syncTemplates(ws, syncDeps(READ_BEFORE_TEMPLATE_FIXTURES));
    const coupon = await templateOf(ws, 'coupon_expiration_reminder', 'en');
    const variables = { '1': 'SUMMER20', '2': '10', header_1: 'Budi', button_0: 'SUMMER20' };

    await webhook('status-update-paused.json');
    expect((await templateOf(ws, 'coupon_expiration_reminder', 'en')).status).toBe('PAUSED');
    clearTemplateCache();
    expect(await rejection(send(command(ws, coupon.id, variables)))).toMatchObject({ code: 'template_not_ready' });

    await webhook('status-update-reinstated.json');
    clearTemplateCache();
    expect((await templateOf(ws, 'coupon_expiration_reminder', 'en')).status).toBe('APPROVED');
    expect(await send(command(ws, coupon.id, variables))).toMatchObject({ status: 'queued' });
  });

  it('adds a version at the new category’s cost when a category change is made, and ignores an announced one', async () => {
    const ws = await workspace({ MARKETING: 5, UTILITY: 1, AUTHENTICATION: 1 });
    await syncTemplates(ws, syncDeps(READ_BEFORE_TEMPLATE_FIXTURES));
    const before = await templateOf(ws, 'reservation_confirmation', 'en_US');

    await webhook('category-update-impending.json');
    expect(await templateOf(ws, 'reservation_confirmation', 'en_US')).toEqual(before);

    await webhook('category-update-completed.json');
    const after = await templateOf(ws, 'reservation_confirmation', 'en_US');
    expect(after.category).toBe('MARKETING');
    expect(after.versions.map((v) => [v.version, v.category, v.creditCostPerSend, v.status])).toEqual([
      [1, 'UTILITY', 1, 'SUPERSEDED'],
      [2, 'MARKETING', 5, 'READY'],
    ]);
    expect(after.versions[1]!.body).toBe(before.versions[0]!.body);
  });

  it('sends the version Meta holds again when a category change is undone: UTILITY credits, not the newer MARKETING version’s (decision 146)', async () => {
    const ws = await workspace({ MARKETING: 5, UTILITY: 1, AUTHENTICATION: 1 });
    await syncTemplates(ws, syncDeps(READ_BEFORE_TEMPLATE_FIXTURES));
    await webhook('category-update-completed.json');
    // Meta moves it back (an appeal upheld): the same content in UTILITY, version 1's.
    const undone = readWhatsAppTemplateFixture<{ entry: { changes: { value: Record<string, unknown> }[] }[] }>('category-update-completed.json');
    Object.assign(undone.entry[0]!.changes[0]!.value, { previous_category: 'MARKETING', new_category: 'UTILITY' });
    await applyProviderReports(webhookEnvelopeSchema.parse(undone), env.table);

    const template = await templateOf(ws, 'reservation_confirmation', 'en_US');
    expect(template.versions.map((v) => [v.version, v.category, v.status, v.disabledAt !== undefined])).toEqual([
      [1, 'UTILITY', 'READY', false],
      [2, 'MARKETING', 'SUPERSEDED', true],
    ]);
    clearTemplateCache();
    const { dispatchId } = await send(
      command(ws, template.id, { number_of_guests: '4', day: 'Saturday', date: 'August 30th', time: '7:30 pm', header_image: 'https://example.com/t.jpg', button_0: 'R-1042' }),
    );
    expect(await getDispatch(ws, dispatchId, env.table)).toMatchObject({ creditCost: 1 });
  });

  it('reads an edited template again from the Graph API at once: a new version, the earlier one SUPERSEDED (decision 147)', async () => {
    const ws = await workspace();
    await syncTemplates(ws, syncDeps());
    serveEditedCoupon();
    graph.received.length = 0;

    const templateId = syncedTemplateId(ws, 'coupon_expiration_reminder', 'en');
    expect(await applyTemplateWebhook(WABA, readWhatsAppTemplateFixture<{ entry: { changes: { field: 'message_template_components_update'; value: unknown }[] }[] }>('components-update.json').entry[0]!.changes[0]!, env.table, new Date(), readTemplate)).toBe('applied');
    expect(graph.received.map((request) => [request.method, request.url, request.authorization])).toEqual([
      ['GET', '/v26.0/1304694804498707?fields=id%2Cname%2Clanguage%2Cstatus%2Ccategory%2Cparameter_format%2Ccomponents', 'Bearer token-1'],
    ]);
    const template = (await getTemplate(ws, templateId, env.table))!;
    expect(template.versions.map((v) => [v.version, v.status, v.variableDefinitions.filter((d) => d.required).map((d) => d.name)])).toEqual([
      [1, 'SUPERSEDED', ['1', '2', 'header_1', 'button_0']],
      [2, 'READY', ['1', '2', '3', 'header_1', 'button_0']],
    ]);

    // The Graph API unreachable: nothing changes, the hourly sync reads the edit.
    graph.answer = () => ({ status: 500, body: { error: { code: 2, message: 'Service temporarily unavailable' } } });
    expect(await applyTemplateWebhook(WABA, { field: 'message_template_components_update', value: { message_template_id: 1304694804498707, message_template_name: 'coupon_expiration_reminder', message_template_language: 'en' } }, env.table, new Date(), readTemplate)).toBe('not_read');
    expect(await getTemplate(ws, templateId, env.table)).toEqual(template);
  });

  // The sync reads the whole list first and saves each template after: an edit read and saved in
  // between is newer than the list, whose older content must not come back as the newest version.
  it('keeps an edit read from the Graph API while a sync ran: the sync’s older list does not supersede it', async () => {
    const ws = await workspace();
    await syncTemplates(ws, syncDeps());
    serveEditedCoupon();
    const templateId = syncedTemplateId(ws, 'coupon_expiration_reminder', 'en');
    const edit = readWhatsAppTemplateFixture<{ entry: { changes: { field: 'message_template_components_update'; value: unknown }[] }[] }>('components-update.json').entry[0]!.changes[0]!;

    let edits = 0;
    const db = new Proxy(env.table.db, {
      get(target, prop) {
        if (prop !== 'send') return Reflect.get(target, prop);
        return async (command: unknown) => {
          if (command instanceof GetCommand && (command.input.Key as { sk?: string } | undefined)?.sk === `TPL#${templateId}` && edits === 0) {
            edits += 1;
            expect(await applyTemplateWebhook(WABA, edit, env.table, new Date(), readTemplate)).toBe('applied');
          }
          return target.send(command as never);
        };
      },
    });
    await syncTemplates(ws, { ...syncDeps(), store: { db, tableName: env.table.tableName } });

    expect(edits).toBe(1);
    const template = (await getTemplate(ws, templateId, env.table))!;
    expect(template.versions.map((v) => [v.version, v.status])).toEqual([
      [1, 'SUPERSEDED'],
      [2, 'READY'],
    ]);
    // The next run, which asks after the edit was read, reads the list as Meta has it then.
    await syncTemplates(ws, syncDeps());
    expect((await getTemplate(ws, templateId, env.table))!.versions.map((v) => [v.version, v.status])).toEqual([
      [1, 'READY'],
      [2, 'SUPERSEDED'],
    ]);
  });

  // Decision 188 takes contentReadAt from the clock of whoever ran the sync: `admin templates
  // sync` on an operator's machine, a Lambda. A run whose clock was ahead leaves a contentReadAt in
  // the future, and until our clock catches up every edit webhook and every hourly sync is "older
  // news": Meta's edit is never applied, sends keep the old content's parameters.
  it('applies an edit webhook after a sync whose clock ran 10 minutes ahead', async () => {
    const ws = await workspace();
    await syncTemplates(ws, { ...syncDeps(), now: () => new Date(Date.now() + 10 * 60_000) });
    serveEditedCoupon();
    const templateId = syncedTemplateId(ws, 'coupon_expiration_reminder', 'en');
    const edit = readWhatsAppTemplateFixture<{ entry: { changes: { field: 'message_template_components_update'; value: unknown }[] }[] }>('components-update.json').entry[0]!.changes[0]!;
    expect(await applyTemplateWebhook(WABA, edit, env.table, new Date(), readTemplate)).toBe('applied');
    expect((await getTemplate(ws, templateId, env.table))!.versions.map((v) => [v.version, v.status])).toEqual([
      [1, 'SUPERSEDED'],
      [2, 'READY'],
    ]);
  });

  it('reads a template approved before any sync saw it from the Graph API at once, so it is sendable now, not at the next sync (decision 147)', async () => {
    const ws = await workspace();
    const [reservation] = pages[0]!.data as { id: string }[];
    const reads: string[] = [];
    const readTemplate = (id: string) => (reads.push(id), Promise.resolve(graphTemplateSchema.parse(reservation)));
    const approval = { message_template_id: 1387372356726668, message_template_name: 'reservation_confirmation', message_template_language: 'en_US', event: 'APPROVED', reason: 'NONE' };
    expect(await applyTemplateWebhook(WABA, { field: 'message_template_status_update', value: approval }, env.table, new Date(), readTemplate)).toBe('applied');
    expect(reads).toEqual(['1387372356726668']);
    expect(await templateOf(ws, 'reservation_confirmation', 'en_US')).toMatchObject({ status: 'APPROVED', versions: [{ version: 1, status: 'READY' }] });

    // Another event for a template no sync has seen still waits for the sync.
    const paused = { ...approval, message_template_name: 'address_update', message_template_language: 'id', event: 'PAUSED' };
    expect(await applyTemplateWebhook(WABA, { field: 'message_template_status_update', value: paused }, env.table, new Date(), readTemplate)).toBe('unknown_template');
    expect(reads).toHaveLength(1);
  });

  it('applies nothing for an account no workspace owns', async () => {
    const ws = await workspace();
    await syncTemplates(ws, syncDeps());
    const payload = readWhatsAppTemplateFixture<{ entry: { id: string }[] }>('status-update-paused.json');
    payload.entry[0]!.id = '999999999';
    await applyProviderReports(webhookEnvelopeSchema.parse(payload), env.table);
    expect((await templateOf(ws, 'coupon_expiration_reminder', 'en')).status).toBe('APPROVED');
  });
});

describe('refusals that last minutes: the pair rate limit (131056), a number in maintenance (131057)', () => {
  it.each([
    ['error-131056.json', 400],
    ['error-131057.json', 500],
  ])('retries the message refused with %s (HTTP %s) at 4, 16, 64 and 180 s, not 2 to 16, and delivers it once the refusals end', async (fixture, status) => {
    const ws = await workspace();
    await syncTemplates(ws, syncDeps());
    const verification = await templateOf(ws, 'verification_code', 'id');
    const { dispatchId } = await send(command(ws, verification.id, { '1': '123456', button_0: '123456' }));

    let refusals = 4;
    graph.answer = () => (refusals-- > 0 ? { status, body: readWhatsAppTemplateFixture(fixture) } : { status: 200, body: { messages: [{ id: 'wamid.pair' }] } });
    const provider = whatsAppCloudProvider({ baseUrl: graph.baseUrl, timeoutMs: 2_000, credentials: () => Promise.resolve({ accessToken: 't', appSecret: 's', verifyToken: 'v' }) });
    const deliver = (receiveCount: number) => deliverQueuedDispatch({ dispatchId, workspaceId: ws, receiveCount, maxReceives: 5 }, { providerFor: () => provider, store: env.table });

    const verdicts = [];
    for (const receive of [1, 2, 3, 4, 5]) verdicts.push(await deliver(receive));
    expect(verdicts).toEqual([
      { outcome: 'retry', afterSeconds: 4 },
      { outcome: 'retry', afterSeconds: 16 },
      { outcome: 'retry', afterSeconds: 64 },
      { outcome: 'retry', afterSeconds: 180 },
      { outcome: 'sent' },
    ]);
    expect(await getDispatch(ws, dispatchId, env.table)).toMatchObject({ status: 'sent', providerMessageId: 'wamid.pair', failureCode: null, laterAnswers: 4 });
  });
});

/**
 * A WhatsApp outage as Meta documents its answers (WhatsApp error codes): `133004` "Server
 * temporarily unavailable" and `131016` "Service unavailable" (HTTP 503), `2` "API Service:
 * Temporary due to downtime or due to being overloaded", each "check the WhatsApp Business Platform
 * Status page … before trying again". Outages there last minutes, not seconds. The queue's pauses
 * (what each verdict asks the message to come back after) run on a clock of the test's own; a
 * message let go on its last receive comes back, as a new queue message, after the reconciler's
 * wait for a released dispatch (decision 132).
 */
describe('a WhatsApp outage: Meta’s 503 answers 133004, 131016 and 2 (decision 228)', () => {
  const outage = (code: number, message: string, details: string) => ({
    status: 503,
    body: { error: { message, type: 'OAuthException', code, error_data: { messaging_product: 'whatsapp', details }, fbtrace_id: 'AbCdEfGh123' } },
  });
  const answers = {
    133004: outage(133004, '(#133004) Server temporarily unavailable', 'Server is temporarily unavailable. Check the WhatsApp Business Platform Status page and try again later.'),
    131016: outage(131016, '(#131016) Service unavailable', 'A service is temporarily unavailable.'),
    2: outage(2, '(#2) Service temporarily unavailable', 'Temporary due to downtime or due to being overloaded.'),
  };

  // Meta's documented 429 body for its throughput limit: likely as WhatsApp comes back, when every waiting message goes at once.
  const rateLimited = {
    status: 429,
    body: { error: { message: '(#130429) Rate limit hit', type: 'OAuthException', code: 130429, error_data: { messaging_product: 'whatsapp', details: 'Cloud API message throughput has been reached.' }, fbtrace_id: 'AbCdEfGh124' } },
  };
  const accepted = { status: 200, body: { messaging_product: 'whatsapp', messages: [{ id: 'wamid.after-outage' }] } };

  /**
   * Sends a message while WhatsApp answers `code` for `outageSeconds`, then `afterOutage` in turn
   * (`backAnswer` once those are spent: by default, acceptance); follows its queue messages until it settles.
   */
  async function throughOutage(code: keyof typeof answers, outageSeconds: number, afterOutage: readonly GraphAnswer[] = [], backAnswer: GraphAnswer = accepted) {
    const ws = await workspace();
    await syncTemplates(ws, syncDeps());
    const verification = await templateOf(ws, 'verification_code', 'id');
    const { dispatchId } = await send(command(ws, verification.id, { '1': '123456', button_0: '123456' }));
    let second = 0;
    const after = [...afterOutage];
    graph.answer = () => (second < outageSeconds ? answers[code] : (after.shift() ?? backAnswer));
    const provider = whatsAppCloudProvider({ baseUrl: graph.baseUrl, timeoutMs: 2_000, credentials: () => Promise.resolve({ accessToken: 't', appSecret: 's', verifyToken: 'v' }) });
    let receiveCount = 1;
    for (let guard = 0; guard < 30; guard++) {
      const verdict = await deliverQueuedDispatch({ dispatchId, workspaceId: ws, receiveCount, maxReceives: 5 }, { providerFor: () => provider, store: env.table });
      if (verdict.outcome === 'retry') {
        second += verdict.afterSeconds;
        receiveCount += 1;
      } else if (verdict.outcome === 'held') {
        second += RELEASED_GRACE_MS / 1000;
        receiveCount = 1;
      } else {
        const dispatch = (await getDispatch(ws, dispatchId, env.table))!;
        return { outcome: verdict.outcome, status: dispatch.status, failureCode: dispatch.failureCode, laterAnswers: dispatch.laterAnswers, outageAnswers: dispatch.outageAnswers, second };
      }
    }
    throw new Error('the message never settled');
  }

  // Retried at 2, 4, 8 and 16 s, the fifth answer failed the message `retries_exhausted:<code>`
  // half a minute in: every message of a campaign in flight during a one-minute outage.
  it.each([133004, 131016, 2] as const)('sends the message once WhatsApp is back from a minute’s outage (code %s), instead of failing it after half a minute', async (code) => {
    expect(await throughOutage(code, 60)).toMatchObject({ outcome: 'sent', status: 'sent', failureCode: null, laterAnswers: 3 });
  });

  it('waits out an outage of twenty minutes', async () => {
    expect(await throughOutage(133004, 20 * 60)).toMatchObject({ outcome: 'sent', status: 'sent', failureCode: null });
  });

  // Decision 132's budget still holds: a message does not wait for ever on a provider that stays down.
  it('fails the message `retries_exhausted:<code>` only once the outage outlasts half an hour', async () => {
    const failed = await throughOutage(133004, 24 * 60 * 60);
    expect(failed).toMatchObject({ outcome: 'failed', status: 'failed', failureCode: 'retries_exhausted:133004', laterAnswers: 18 });
    expect(failed.second).toBeGreaterThanOrEqual(30 * 60);
  });

  // The outage's answers and the other "later"s shared decision 132's count: ten minutes of outage
  // (seven answers) had spent the five the throughput limit gets, and its first 130429 failed the
  // message `retries_exhausted:130429` (decision 231).
  it('sends the message when WhatsApp comes back from a ten-minute outage with a throughput limit (130429), instead of failing it on that first 130429', async () => {
    expect(await throughOutage(133004, 10 * 60, [rateLimited])).toMatchObject({ outcome: 'sent', status: 'sent', failureCode: null, laterAnswers: 8, outageAnswers: 7 });
  });

  // Each kind keeps its own budget: after the outage, the throughput limit's fifth answer still fails the message.
  it('fails the message on the fifth throughput limit after an outage, as without one', async () => {
    expect(await throughOutage(133004, 10 * 60, [], rateLimited)).toMatchObject({ outcome: 'failed', status: 'failed', failureCode: 'retries_exhausted:130429', laterAnswers: 11, outageAnswers: 7 });
  });
});

describe('template pacing: WhatsApp holds a template’s messages while it assesses its quality', () => {
  it('records a held message as sent, counts it held, and notes the template as held on the sending number (decision 148)', async () => {
    const ws = await workspace();
    await syncTemplates(ws, syncDeps());
    const coupon = await templateOf(ws, 'coupon_expiration_reminder', 'en');
    const { dispatchId } = await send(command(ws, coupon.id, { '1': 'SUMMER20', '2': '10', header_1: 'Budi', button_0: 'SUMMER20' }));
    const answer = readWhatsAppTemplateFixture<{ messages: { id: string }[] }>('send-held-for-quality-assessment.json');
    graph.answer = () => ({ status: 200, body: answer });
    const provider = whatsAppCloudProvider({ baseUrl: graph.baseUrl, timeoutMs: 2_000, credentials: () => Promise.resolve({ accessToken: 't', appSecret: 's', verifyToken: 'v' }) });
    publishMetrics(); // what earlier tests recorded, as the end of their invocations would
    capture.clear();
    expect(await deliverQueuedDispatch({ dispatchId, workspaceId: ws, receiveCount: 1, maxReceives: 5 }, { providerFor: () => provider, store: env.table })).toEqual({ outcome: 'sent' });
    publishMetrics();
    expect([capture.sum(metricNames.heldForQualityAssessment, { service: 'messaging-api' }), capture.sum(metricNames.sent, { service: 'messaging-api' })]).toEqual([1, 1]);
    const dispatch = (await getDispatch(ws, dispatchId, env.table))!;
    expect(dispatch).toMatchObject({ status: 'sent', providerMessageId: answer.messages[0]!.id });
    const { Item } = await env.table.db.send(new GetCommand({ TableName: env.table.tableName, Key: keys.templatePacing(`pn-${ws}`, coupon.id) }));
    expect(Item).toEqual({ ...keys.templatePacing(`pn-${ws}`, coupon.id), entity: 'templatePacing', heldThrough: dispatch.sentAt, ttl: Math.floor(Date.parse(dispatch.sentAt!) / 1000) + 86_400 });
  });
});

describe('an expired access token (Graph error 190)', () => {
  it('holds delivery: released and retried with back-off, then left to the reconciler, never failed', async () => {
    const ws = await workspace();
    await syncTemplates(ws, syncDeps());
    const verification = await templateOf(ws, 'verification_code', 'id');
    const { dispatchId } = await send(command(ws, verification.id, { '1': '123456', button_0: '123456' }));

    graph.answer = () => ({ status: 401, body: readWhatsAppTemplateFixture('error-190.json') });
    const provider = whatsAppCloudProvider({ baseUrl: graph.baseUrl, timeoutMs: 2_000, credentials: () => Promise.resolve({ accessToken: 'expired', appSecret: 's', verifyToken: 'v' }) });
    const deliver = (receiveCount: number) => deliverQueuedDispatch({ dispatchId, workspaceId: ws, receiveCount, maxReceives: 5 }, { providerFor: () => provider, store: env.table });

    expect(await deliver(1)).toEqual({ outcome: 'retry', afterSeconds: 2 });
    expect(await deliver(4)).toEqual({ outcome: 'retry', afterSeconds: 16 });
    // The last receive lets the queue message go (no DLQ); the dispatch waits, released, for the reconciler.
    expect(await deliver(5)).toEqual({ outcome: 'held' });
    const held = (await getDispatch(ws, dispatchId, env.table))!;
    expect(held).toMatchObject({ status: 'processing', failureCode: null });
    expect(held.attemptStartedAt).toBeUndefined();

    await env.queues.receiveAll();
    const later = new Date(Date.parse(held.updatedAt) + RELEASED_GRACE_MS + 1_000);
    await reconcile(later, env.table, env.queues);
    expect(await env.queues.receiveAll()).toContainEqual({ dispatchId, workspaceId: ws });
    expect(await getDispatch(ws, dispatchId, env.table)).toMatchObject({ status: 'processing', failureCode: null });
  });
});

describe('a rejected template approved on appeal', () => {
  // The hourly sync had read it REJECTED, version and all; Meta's APPROVED after the appeal left the
  // version REJECTED, and every send answered 422 template_not_ready until the next sync.
  it('is sendable as soon as Meta’s APPROVED webhook arrives, as any approval is (decision 147)', async () => {
    const ws = await workspace();
    await syncTemplates(ws, syncDeps());
    expect(await templateOf(ws, 'summer_sale', 'en')).toMatchObject({ status: 'REJECTED', versions: [{ status: 'REJECTED' }] });

    const ref = { message_template_id: 1092999222892024, message_template_name: 'summer_sale', message_template_language: 'en', message_template_category: 'MARKETING' };
    const status = (event: string) => applyTemplateWebhook(WABA, { field: 'message_template_status_update', value: { ...ref, event, reason: 'NONE' } }, env.table, new Date());
    expect([await status('IN_APPEAL'), await status('APPROVED')]).toEqual(['applied', 'applied']);
    clearTemplateCache();

    const approved = await templateOf(ws, 'summer_sale', 'en');
    expect(approved).toMatchObject({ status: 'APPROVED', versions: [{ status: 'READY' }] });
    expect(await send(command(ws, approved.id, { '1': 'SUN25' }))).toMatchObject({ status: 'queued' });
  });
});

describe('values WhatsApp documents it refuses, refused at the send', () => {
  // coupon_expiration_reminder (page-1.json): a text header {{1}}, a body {{1}} {{2}} and a COPY_CODE button at index 0.
  const variables = { '1': 'SUMMER20', '2': '10', header_1: 'Budi', button_0: 'SUMMER20' };

  it('a coupon code that is not 1–20 letters and digits (Meta’s coupon code templates), and a text header value over 60 characters (Meta’s parameter object)', async () => {
    const ws = await workspace();
    await syncTemplates(ws, syncDeps());
    const coupon = await templateOf(ws, 'coupon_expiration_reminder', 'en');
    for (const refused of [{ button_0: 'SUMMER-20%' }, { button_0: 'A'.repeat(21) }, { header_1: 'B'.repeat(61) }]) {
      expect(await rejection(send(command(ws, coupon.id, { ...variables, ...refused })))).toMatchObject({ status: 422, code: 'validation_failed' });
    }
    expect(await env.queues.receiveAll()).toEqual([]);
    expect(await send(command(ws, coupon.id, { ...variables, button_0: 'A'.repeat(20), header_1: 'B'.repeat(60) }))).toMatchObject({ status: 'queued' });
  });

  // Meta's parameter object (Cloud API messages reference): a text parameter of the body component
  // is at most 1024 characters when other component types are included (32768 when the body is the
  // only one). coupon_expiration_reminder's send carries a header and buttons: WhatsApp refuses a
  // body value of 1025 characters, yet our limit was the send schema's 4000 and the send was 202.
  it('a body value over 1024 characters in a template with a header and buttons (Meta’s parameter object)', async () => {
    const ws = await workspace();
    await syncTemplates(ws, syncDeps());
    const coupon = await templateOf(ws, 'coupon_expiration_reminder', 'en');
    const refused = await rejection(send(command(ws, coupon.id, { ...variables, '2': '1'.repeat(1025) })));
    expect(refused).toMatchObject({ status: 422, code: 'validation_failed', message: 'content.variables: 2: must be text on one line of at most 1024 characters, with no tab and at most four spaces in a row' });
    expect(await env.queues.receiveAll()).toEqual([]);
    expect(await send(command(ws, coupon.id, { ...variables, '2': '1'.repeat(1024) }))).toMatchObject({ status: 'queued' });
  });

  it('a body value past 1024 characters in a template whose send carries the body alone (Meta’s 32768; the send’s own 4000)', async () => {
    const ws = await workspace();
    await syncTemplates(ws, syncDeps());
    const ref = { message_template_id: 1092999222892024, message_template_name: 'summer_sale', message_template_language: 'en', message_template_category: 'MARKETING' };
    await applyTemplateWebhook(WABA, { field: 'message_template_status_update', value: { ...ref, event: 'APPROVED', reason: 'NONE' } }, env.table, new Date());
    clearTemplateCache();
    const bodyOnly = await templateOf(ws, 'summer_sale', 'en');
    expect(await send(command(ws, bodyOnly.id, { '1': 'S'.repeat(4000) }))).toMatchObject({ status: 'queued' });
  });

  // docs/api.md: a body's value is held to 1024 "when the send carries a header, an offer's end, a button or a
  // carousel with it", else only to the send's 4000 (Meta's 32768 for a body alone). A top-level quick reply's
  // payload is optional, and left out it sends no button component: the send carries the body alone.
  it('a body value past 1024 characters when the only button is a quick reply whose payload is left out (the send carries the body alone)', async () => {
    const ws = await workspace();
    const [first] = page1.data;
    const feedback = {
      ...first!,
      name: 'feedback_prompt',
      id: '1000000000000077',
      parameter_format: 'POSITIONAL',
      components: [
        { type: 'BODY', text: 'Your order notes: {{1}}', example: { body_text: [['Leave at the door']] } },
        { type: 'BUTTONS', buttons: [{ type: 'QUICK_REPLY', text: 'Stop promotions' }] },
      ],
    };
    graph.answer = templatePages(WABA, [{ data: [feedback], paging: lastPage }]);
    expect(await syncTemplates(ws, syncDeps())).toMatchObject({ created: 1 });
    const template = await templateOf(ws, 'feedback_prompt', first!.language);
    const { dispatchId } = await send(command(ws, template.id, { '1': 'n'.repeat(1024) }));
    await deliverToGraph(ws, dispatchId, 'wamid.feedback');
    // What WhatsApp is sent: the body component alone.
    expect((graph.received[0]!.body as { template: { components: { type: string }[] } }).template.components.map((component) => component.type)).toEqual(['body']);

    expect(await rejection(send(command(ws, template.id, { '1': 'n'.repeat(1025) })))).toBeUndefined();
  });

  // A URL button's suffix goes to WhatsApp as a text parameter ({ type: 'text', text }), and docs/api.md holds
  // "every value WhatsApp takes as text" to one line, not empty: WhatsApp refuses an empty one (131008) and
  // one with a new line (132018). reservation_confirmation's URL button {{1}} is at index 0.
  it('a URL button’s suffix that is empty or not one line, as every text parameter WhatsApp takes', async () => {
    const ws = await workspace();
    await syncTemplates(ws, syncDeps());
    const reservation = await templateOf(ws, 'reservation_confirmation', 'en_US');
    const reservationVariables = { number_of_guests: '4', day: 'Saturday', date: 'August 30th', time: '7:30 pm', header_image: 'https://example.com/r.jpg' };
    for (const suffix of ['', 'R-1042\nR-1043', 'R\t1042']) {
      expect([suffix, await rejection(send(command(ws, reservation.id, { ...reservationVariables, button_0: suffix })))]).toEqual([
        suffix,
        expect.objectContaining({ status: 422, code: 'validation_failed', message: 'content.variables: button_0: must be text on one line, not empty, with no tab and at most four spaces in a row' }),
      ]);
    }
    expect(await env.queues.receiveAll()).toEqual([]);
    expect(await send(command(ws, reservation.id, { ...reservationVariables, button_0: 'R-1042' }))).toMatchObject({ status: 'queued' });
  });

  it('a one-time password over 15 characters (Meta’s authentication templates), named with what it must be', async () => {
    const ws = await workspace();
    await syncTemplates(ws, syncDeps());
    // verification_code (page-2.json): the body's {{1}} and the copy-code OTP button Meta returns as a URL button.
    const otp = await templateOf(ws, 'verification_code', 'id');
    for (const code of ['1234567890123456', '123\n456', '']) {
      const refused = await rejection(send(command(ws, otp.id, { '1': code || '1', button_0: code })));
      expect(refused).toMatchObject({ status: 422, code: 'validation_failed' });
      expect(refused?.message).toContain('button_0: must be a one-time password of 1 to 15 characters on one line');
    }
    expect(await env.queues.receiveAll()).toEqual([]);
    expect(await send(command(ws, otp.id, { '1': '123456789012345', button_0: '123456789012345' }))).toMatchObject({ status: 'queued' });
  });

  it('the code in an authentication template’s body as its button’s: WhatsApp refuses one over 15 characters, or with a link or an emoji (error 100)', async () => {
    const ws = await workspace();
    await syncTemplates(ws, syncDeps());
    const otp = await templateOf(ws, 'verification_code', 'id');
    for (const code of ['1234567890123456', 'https://x.io', 'www.x.io', '12🔑34']) {
      const refused = await rejection(send(command(ws, otp.id, { '1': code, button_0: '123456' })));
      expect(refused).toMatchObject({ status: 422, code: 'validation_failed' });
      expect(refused?.message).toContain('1: must be a one-time password of 1 to 15 characters on one line');
      expect(await rejection(send(command(ws, otp.id, { '1': '123456', button_0: code })))).toMatchObject({ status: 422, code: 'validation_failed' });
    }
    expect(await env.queues.receiveAll()).toEqual([]);
  });
});
