/**
 * Delivery from a WhatsApp number over the local runtime, WhatsApp played by a Graph stub: the
 * number's pace (decision 136), a refusal that lasts minutes (decision 138), a refusal of the sender
 * (decision 153), an edited template read again by the webhook (decision 147), and a message held
 * for template pacing (decision 148).
 */
import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { keys } from '../../lambdas/shared/table';
import { updateWorkspace } from '../../lambdas/domain/workspaces/workspace-repository';
import { syncTemplates } from '../../lambdas/domain/templates/template-sync';
import { readWhatsAppTemplateFixture, startGraphStub, templatePages, type GraphStub } from '../support/graph-stub';
import { postSignedWebhook, whatsAppEnvelope } from '../support/webhooks';
import { call, SECOND, SECOND_SEED, startTestRuntime, waitForStatus } from '../support/local-runtime';

const KEY = SECOND.fullKey;
let runtime: Awaited<ReturnType<typeof startTestRuntime>>;
let graph: GraphStub;
/** When each provider call reached the Graph stub (epoch ms). */
const arrivals: number[] = [];
/** A recipient whose first message WhatsApp refuses while the number is in maintenance (131057). */
const IN_MAINTENANCE = '+6281234565057';
/** When each call for that recipient reached the stub (epoch ms). */
const maintenanceCalls: number[] = [];
/** A recipient whose message WhatsApp refuses for the sender: the account's payment method (131042). */
const PAYMENT_REFUSED = '+6281234561042';
/** A recipient whose message WhatsApp holds while it assesses the template's quality (template pacing). */
const PACED = '+6281234561320';
const HELD = readWhatsAppTemplateFixture<{ messages: { id: string }[] }>('send-held-for-quality-assessment.json');
const graphBaseUrl = process.env.GRAPH_API_BASE_URL;
const WABA = '102290129340398';
const TEMPLATE_PAGES = ['page-1.json', 'page-2.json', 'page-3.json'].map((name) => readWhatsAppTemplateFixture<Parameters<typeof templatePages>[1][number]>(name));
/** `coupon_expiration_reminder` as Meta holds it after an edit of its body. */
const EDITED = readWhatsAppTemplateFixture<{ data: { id: string }[] }>('edited-page.json').data[0]!;

beforeAll(async () => {
  // Meta's answer to an accepted template message (Cloud API, POST /{phone-number-id}/messages).
  graph = await startGraphStub((request) => {
    // The Graph API's template reads: the account's pages for a sync, one template for an edit.
    if (request.method === 'GET') return new URL(request.url, 'http://graph.local').pathname === `/v26.0/${EDITED.id}` ? { status: 200, body: EDITED } : templatePages(WABA, TEMPLATE_PAGES)(request);
    const { to } = request.body as { to: string };
    if (to.replace('+', '') === IN_MAINTENANCE.replace('+', '') && maintenanceCalls.push(Date.now()) === 1) return { status: 500, body: readWhatsAppTemplateFixture('error-131057.json') };
    if (to.replace('+', '') === PACED.replace('+', '')) return { status: 200, body: HELD };
    if (to.replace('+', '') === PAYMENT_REFUSED.replace('+', '')) return { status: 400, body: readWhatsAppTemplateFixture('error-131042.json') };
    arrivals.push(Date.now());
    return { status: 200, body: { messaging_product: 'whatsapp', contacts: [{ input: to, wa_id: to.replace('+', '') }], messages: [{ id: `wamid.HBgLNjI4MTIzNDU2Nzg5MBUCABEYEj${arrivals.length}` }] } };
  });
  // Read when the runtime loads its handlers.
  process.env.GRAPH_API_BASE_URL = graph.baseUrl;
  runtime = await startTestRuntime({ seedPath: SECOND_SEED });
  // The workspace's own number, which WhatsApp takes two messages a second from.
  await updateWorkspace('ws-second', { settings: { provider: 'whatsapp', whatsappMessagesPerSecond: 2 } }, new Date(), runtime.store);
});
afterAll(async () => {
  await runtime.stop();
  await graph.close();
  if (graphBaseUrl === undefined) delete process.env.GRAPH_API_BASE_URL;
  else process.env.GRAPH_API_BASE_URL = graphBaseUrl;
});

/** A send of the second seed's template to `to`, over HTTP. */
const sendTo = (to: string) =>
  call(runtime.url, 'POST', '/v1/messages', { apiKey: KEY, body: { channel: 'whatsapp', to, content: { type: 'template', templateId: SECOND.templateId, variables: { name: 'Sari' } } } });

describe('a WhatsApp number’s pace, over HTTP (decision 136)', () => {
  it('spreads a burst over the seconds the number’s throughput needs, each message sent once', async () => {
    const ids: string[] = [];
    for (let i = 0; i < 6; i++) {
      const { status, body } = await sendTo(`08123456${i}701`);
      expect(status).toBe(202);
      ids.push(body.dispatchId as string);
    }

    for (const id of ids) expect(await waitForStatus(runtime.url, KEY, id, ['sent', 'failed', 'unknown'])).toMatchObject({ status: 'sent' });

    // Each dispatch went to the provider once, by the id it echoes.
    expect(graph.received.map((request) => (request.body as { biz_opaque_callback_data: string }).biz_opaque_callback_data).sort()).toEqual([...ids].sort());
    // Six at two a second take three seconds at least; sent unpaced they take a fraction of one.
    expect(new Set(arrivals.map((at) => Math.floor(at / 1000))).size).toBeGreaterThanOrEqual(3);
  }, 30_000);
});

describe('a refusal that lasts minutes, over HTTP (decision 138)', () => {
  it('retries a message refused while the number is in maintenance (131057) after 4 s, not 2, and sends it once', async () => {
    const { status, body } = await sendTo(IN_MAINTENANCE);
    expect(status).toBe(202);
    expect(await waitForStatus(runtime.url, KEY, body.dispatchId as string, ['sent', 'failed', 'unknown'])).toMatchObject({ status: 'sent', failureCode: null });
    // Refused once, then taken: two calls, the second after the long back-off's first 4 s (a short one waits 2).
    expect(maintenanceCalls).toHaveLength(2);
    expect(maintenanceCalls[1]! - maintenanceCalls[0]!).toBeGreaterThanOrEqual(4_000);
  }, 30_000);
});

describe('a send WhatsApp refuses for its sender, over HTTP (decision 153)', () => {
  it('fails the message with 131042 on WhatsApp’s first answer, without asking again', async () => {
    const { status, body } = await sendTo(PAYMENT_REFUSED);
    expect(status).toBe(202);
    expect(await waitForStatus(runtime.url, KEY, body.dispatchId as string, ['sent', 'failed', 'unknown'])).toMatchObject({ status: 'failed', failureCode: '131042' });
    expect(graph.received.filter((request) => (request.body as { biz_opaque_callback_data?: string }).biz_opaque_callback_data === body.dispatchId)).toHaveLength(1);
  }, 30_000);
});

describe('an edited template, over HTTP (decision 147)', () => {
  it('reads the template again from the Graph API when Meta’s signed message_template_components_update arrives, and lists its new version', async () => {
    await updateWorkspace('ws-second', { settings: { whatsappBusinessAccountId: WABA } }, new Date(), runtime.store);
    await syncTemplates('ws-second', { graph: { baseUrl: graph.baseUrl, timeoutMs: 2_000 }, accessToken: () => Promise.resolve('token-1'), store: runtime.store });
    const listed = async () => ((await call(runtime.url, 'GET', '/v1/message-templates', { apiKey: KEY })).body.items as { displayName: string; versions: { version: number; status: string }[] }[]).find((t) => t.displayName === 'coupon_expiration_reminder (en)')!;
    expect((await listed()).versions.map((v) => [v.version, v.status])).toEqual([[1, 'READY']]);

    const answer = await postSignedWebhook(runtime.url, JSON.stringify(readWhatsAppTemplateFixture('components-update.json')));
    expect([answer.status, await answer.json()]).toEqual([200, { success: true }]);
    expect(graph.received.filter((request) => request.url.startsWith(`/v26.0/${EDITED.id}?`)).map((request) => request.method)).toEqual(['GET']);
    expect((await listed()).versions.map((v) => [v.version, v.status])).toEqual([
      [1, 'SUPERSEDED'],
      [2, 'READY'],
    ]);
  }, 30_000);
});

describe('a message WhatsApp holds for template pacing, over HTTP (decision 148)', () => {
  it('reads as sent while held, notes the template as held on the number, and fails with 132015 when WhatsApp drops it', async () => {
    const { status, body } = await sendTo(PACED);
    expect(status).toBe(202);
    const dispatchId = body.dispatchId as string;
    const held = await waitForStatus(runtime.url, KEY, dispatchId, ['sent', 'failed', 'unknown']);
    expect(held).toMatchObject({ status: 'sent', failureCode: null });
    const { Item } = await runtime.store.db.send(new GetCommand({ TableName: runtime.store.tableName, Key: keys.templatePacing('second-number', SECOND.templateId) }));
    expect(Item).toMatchObject({ entity: 'templatePacing', heldThrough: held.sentAt });

    // Negative early feedback: WhatsApp pauses the template and drops what it held, each with a failed status.
    const dropped = whatsAppEnvelope('messages', {
      messaging_product: 'whatsapp',
      metadata: { display_phone_number: '6281100002222', phone_number_id: 'second-number' },
      statuses: [
        {
          id: HELD.messages[0]!.id,
          status: 'failed',
          timestamp: String(Math.floor(Date.now() / 1000)),
          recipient_id: PACED.replace('+', ''),
          biz_opaque_callback_data: dispatchId,
          errors: [{ code: 132015, title: 'Template is Paused', message: 'Template is Paused', error_data: { details: 'Template is paused due to low quality so it cannot be sent in a template message.' } }],
        },
      ],
    }, WABA);
    const answer = await postSignedWebhook(runtime.url, dropped);
    expect([answer.status, await answer.json()]).toEqual([200, { success: true }]);
    expect(await waitForStatus(runtime.url, KEY, dispatchId, ['failed'])).toMatchObject({ status: 'failed', failureCode: '132015', sentAt: held.sentAt });
  }, 30_000);
});

