import { randomUUID } from 'node:crypto';
import { conversationIdFor } from '../../lambdas/domain/conversations/conversation-id';
import { deliverDispatch } from '../../lambdas/domain/delivery/deliver-dispatch';
import { getDispatchById } from '../../lambdas/domain/messages/dispatch-repository';
import { sendTemplateMessage } from '../../lambdas/domain/messages/send-message';
import { ProviderError } from '../../lambdas/domain/providers/provider';
import { signWebhookBody } from '../../lambdas/domain/providers/whatsapp-webhook';
import { saveTemplate } from '../../lambdas/domain/templates/template-repository';
import { listMarketingOptOuts } from '../../lambdas/domain/workspaces/marketing-opt-out';
import { saveWorkspace } from '../../lambdas/domain/workspaces/workspace-repository';
import { saveApiKey } from '../../lambdas/domain/api-keys/api-key-repository';
import { generateApiKey } from '../../lambdas/domain/api-keys/api-key-secret';
import { invokeRoute, parseResult, type RouteHandler } from '../support/events';
import { template, TEMPLATE_ID } from '../support/send-fixtures';
import { useTableAndQueues } from '../support/sqs';
import { runStreamConsumer } from '../support/stream-consumer';
import { clearOfWibMidnight } from '../support/wib-clock';

/**
 * The asynchronous failure path. WhatsApp accepts a message, then reports it `failed` in a status
 * webhook. Payloads are written as Meta's status webhook reference documents
 * them (entry[].changes[].value.statuses[] with errors[] {code, title, message, error_data.details, href}),
 * signed and handed to the real webhook handler; what the API shows is read through the real
 * GET /v1/messages/{id}, delivery-status, tracking summary and conversation messages handlers.
 */
const env = useTableAndQueues();
const h: Record<string, RouteHandler> = {};

beforeAll(async () => {
  process.env.QUEUE_URL = env.queues.queueUrl;
  h.webhook = ((await import('../../lambdas/handlers/whatsapp-webhook')) as { handler: RouteHandler }).handler;
  h.getMessage = ((await import('../../lambdas/handlers/get-message')) as { handler: RouteHandler }).handler;
  h.deliveryStatus = ((await import('../../lambdas/handlers/delivery-status')) as { handler: RouteHandler }).handler;
  h.trackingSummary = ((await import('../../lambdas/handlers/tracking-summary')) as { handler: RouteHandler }).handler;
  h.conversationMessages = ((await import('../../lambdas/handlers/conversation-messages')) as { handler: RouteHandler }).handler;
});

const SENT_AT = new Date('2025-12-31T23:59:00.000Z');
const DAY = '2026-01-01'; // SENT_AT in WIB

async function setup() {
  const id = randomUUID().slice(0, 8);
  const own = { id: `ws-rc-${id}`, number: `rc-${id}`, key: generateApiKey() };
  const other = { id: `ws-rc-o-${id}`, number: `rc-o-${id}`, key: generateApiKey() };
  for (const ws of [own, other]) {
    await saveWorkspace({ id: ws.id, name: ws.id, rupiahPerCredit: 150, settings: { whatsappPhoneNumberId: ws.number } }, new Date(), env.table);
    await saveTemplate(ws.id, template, env.table);
    await saveApiKey(ws.key, { workspaceId: ws.id, name: 'rc', scopes: ['messages:read', 'messages:send'] }, new Date(), env.table);
  }
  return { own, other };
}

/**
 * Sends a dispatch and records WhatsApp's acceptance (`sent`) with its wamid; `streamed: false` stops
 * before the table's stream consumer runs, as a status arriving within the second after does.
 */
async function sent(workspaceId: string, to: string, wamid: string, { streamed = true } = {}): Promise<string> {
  const { dispatchId } = await sendTemplateMessage(
    { workspaceId, apiClient: { id: randomUUID(), name: 'k' }, to, templateId: TEMPLATE_ID, variables: { name: 'Sari', order: 'A-1' }, tagIds: [], trackingTags: ['promo'], now: SENT_AT },
    { store: env.table, queue: env.queues },
  );
  const provider = { send: () => (wamid ? Promise.resolve({ providerMessageId: wamid }) : Promise.reject(new ProviderError('unknown', 'timeout', 'lost'))), settle: () => Promise.resolve() };
  await deliverDispatch({ dispatchId, workspaceId, receiveCount: 1, maxReceives: 5 }, { providerFor: () => provider, store: env.table, now: () => SENT_AT });
  if (streamed) await runStreamConsumer(env.table);
  return dispatchId;
}

/** A status webhook exactly as Meta's reference shapes it. */
function statusPost(phoneNumberId: string, statuses: Record<string, unknown>[]) {
  return {
    object: 'whatsapp_business_account',
    entry: [
      {
        id: '102290129340398',
        changes: [{ value: { messaging_product: 'whatsapp', metadata: { display_phone_number: '15550783881', phone_number_id: phoneNumberId }, statuses }, field: 'messages' }],
      },
    ],
  };
}
const failed = (wamid: string, dispatchId: string | undefined, errors: unknown, extra: Record<string, unknown> = {}) => ({
  id: wamid,
  status: 'failed',
  timestamp: '1767225660',
  recipient_id: '6281234560001',
  ...(dispatchId ? { biz_opaque_callback_data: dispatchId } : {}),
  ...(errors === undefined ? {} : { errors }),
  ...extra,
});
const metaError = (code: number | string, title: string, details?: string) => ({
  code,
  title,
  message: title,
  ...(details ? { error_data: { details } } : {}),
  href: '/documentation/business-messaging/whatsapp/support/error-codes',
});

async function post(body: unknown) {
  const raw = JSON.stringify(body);
  const answer = await invokeRoute('whatsappWebhook', h.webhook!, {
    body: raw,
    headers: { 'Content-Type': 'application/json', 'X-Hub-Signature-256': signWebhookBody(raw, process.env.WHATSAPP_APP_SECRET!) },
  });
  expect([answer.statusCode, answer.body]).toEqual([200, JSON.stringify({ success: true })]);
  await runStreamConsumer(env.table);
}

const getMessage = async (key: string, dispatchId: string) => parseResult(await invokeRoute('getMessage', h.getMessage!, { apiKey: key, pathParameters: { dispatchId } }));
const deliveryEvents = async (key: string, phone: string) =>
  parseResult(await invokeRoute('deliveryStatus', h.deliveryStatus!, { apiKey: key, body: { phones: [phone], startDate: DAY, endDate: DAY } })).body as { items: { events: Record<string, unknown>[] }[] };
const summary = async (key: string) =>
  parseResult(await invokeRoute('trackingSummary', h.trackingSummary!, { apiKey: key, query: { startDate: DAY, endDate: DAY, trackingTags: 'promo' } })).body as {
    items: { dispatchCount: number; amountRupiah: number; credits: number }[];
  };

describe('asynchronous WhatsApp failures', () => {
  it('a Meta-documented failed status (131026) after sent: failed, failureCode, REJECTED event, uncounted; its replay and a late delivered change nothing', async () => {
    const { own } = await setup();
    const wamid = `wamid.HBgLNjI4MTIzNDU2MDAwMRUCABEYEjA.${own.number}`;
    const dispatchId = await sent(own.id, '081234560001', wamid);
    expect((await summary(own.key)).items[0]).toMatchObject({ dispatchCount: 1 });

    const body = statusPost(own.number, [failed(wamid, dispatchId, [metaError(131026, 'Message undeliverable', 'Message Undeliverable.')])]);
    await post(body);
    await post(body);
    await post(statusPost(own.number, [{ id: wamid, status: 'delivered', timestamp: '1767225670', recipient_id: '6281234560001', biz_opaque_callback_data: dispatchId }]));

    const message = await getMessage(own.key, dispatchId);
    expect([message.status, message.body.status, message.body.failureCode]).toEqual([200, 'failed', '131026']);
    const { items } = await deliveryEvents(own.key, '+6281234560001');
    expect(items[0]!.events.map((event) => [event.status, event.failureCode ?? null])).toEqual([
      ['ACCEPTED', null],
      ['REJECTED', '131026'],
    ]);
    expect((await summary(own.key)).items[0]).toMatchObject({ dispatchCount: 0, credits: 0, amountRupiah: 0 });
    const conv = conversationIdFor(own.id, 'whatsapp', '+6281234560001');
    const history = parseResult(await invokeRoute('conversationMessages', h.conversationMessages!, { apiKey: own.key, pathParameters: { conversationId: conv } }));
    expect((history.body.items as Record<string, unknown>[])[0]).toMatchObject({ dispatchId, status: 'failed' });
  });

  it('code given as a string (131050) fails the dispatch and opts the number out', async () => {
    const { own } = await setup();
    const wamid = `wamid.str.${own.number}`;
    const dispatchId = await sent(own.id, '081234560001', wamid);
    await post(statusPost(own.number, [failed(wamid, dispatchId, [metaError('131050', 'Unable to deliver the message. This recipient has chosen to stop receiving marketing messages on WhatsApp from your business.')])]));
    expect((await getMessage(own.key, dispatchId)).body).toMatchObject({ status: 'failed', failureCode: '131050' });
    expect(await listMarketingOptOuts(own.id, env.table)).toEqual([expect.objectContaining({ phone: '+6281234560001', source: 'whatsapp' })]);
  });

  // docs/api.md#delivery-status: "An event is {dispatchId, status, occurredAt} plus failureCode when the provider gave one";
  // docs/api.md#message-status: failureCode is `null` until known: WhatsApp's error code, enqueue_failed, no_phone_number_id or retries_exhausted:<code>.
  it('a failed status whose errors[] is empty: no invented failure code, in GET or in the REJECTED event', async () => {
    const { own } = await setup();
    const wamid = `wamid.empty.${own.number}`;
    const dispatchId = await sent(own.id, '081234560001', wamid);
    await post(statusPost(own.number, [failed(wamid, dispatchId, [])]));
    const message = await getMessage(own.key, dispatchId);
    expect(message.body.status).toBe('failed');
    const { items } = await deliveryEvents(own.key, '+6281234560001');
    expect(items[0]!.events.find((event) => event.status === 'REJECTED')).toEqual({ dispatchId, status: 'REJECTED', occurredAt: expect.any(String) });
    expect(message.body.failureCode).toBeNull();
  });

  it('a failed status whose error has no error_data, or an unknown code, still fails the dispatch with that code', async () => {
    const { own } = await setup();
    const a = `wamid.nodata.${own.number}`;
    const b = `wamid.unknown.${own.number}`;
    const first = await sent(own.id, '081234560001', a);
    const second = await sent(own.id, '081234560002', b);
    await post(statusPost(own.number, [failed(a, first, [{ code: 130472, title: "User's number is part of an experiment" }]), failed(b, second, [metaError(2494100, 'Something new')])]));
    expect((await getMessage(own.key, first)).body).toMatchObject({ status: 'failed', failureCode: '130472' });
    expect((await getMessage(own.key, second)).body).toMatchObject({ status: 'failed', failureCode: '2494100' });
    expect((await summary(own.key)).items[0]).toMatchObject({ dispatchCount: 0, amountRupiah: 0 });
  });

  it('a transient code (131000) reported asynchronously ends the dispatch failed with that code (not retries_exhausted, not re-sent)', async () => {
    const { own } = await setup();
    const wamid = `wamid.transient.${own.number}`;
    const dispatchId = await sent(own.id, '081234560001', wamid);
    await post(statusPost(own.number, [failed(wamid, dispatchId, [metaError(131000, 'Something went wrong', 'Message failed to send due to an unknown error.')])]));
    expect((await getMessage(own.key, dispatchId)).body).toMatchObject({ status: 'failed', failureCode: '131000' });
    expect((await getDispatchById(dispatchId, env.table))!.attemptStartedAt).toBeUndefined();
  });

  it('a failed status for a wamid we never sent, and one from another workspace’s number, change nothing of ours', async () => {
    const { own, other } = await setup();
    const wamid = `wamid.mine.${own.number}`;
    const dispatchId = await sent(own.id, '081234560001', wamid);
    const theirs = await sent(other.id, '081234560001', `wamid.theirs.${other.number}`);
    // Never sent by anyone.
    await post(statusPost(own.number, [failed(`wamid.never.${own.number}`, undefined, [metaError(131026, 'Message undeliverable')])]));
    // Our dispatch's id and wamid, signed by Meta but on the other workspace's number.
    await post(statusPost(other.number, [failed(wamid, dispatchId, [metaError(131050, 'stopped')])]));
    // The other workspace's wamid, echoing our dispatch id, on our number.
    await post(statusPost(own.number, [failed(`wamid.theirs.${other.number}`, theirs, [metaError(131050, 'stopped')])]));
    expect((await getMessage(own.key, dispatchId)).body).toMatchObject({ status: 'sent', failureCode: null });
    expect((await getMessage(other.key, theirs)).body).toMatchObject({ status: 'sent', failureCode: null });
    expect((await getMessage(other.key, dispatchId)).status).toBe(404);
    expect(await listMarketingOptOuts(own.id, env.table)).toEqual([]);
    expect(await listMarketingOptOuts(other.id, env.table)).toEqual([]);
  });

  // docs/api.md#marketing-opt-outs: a `131050` failed status opts the number out; provider-reports.ts records it
  // "as the failure is recorded, and again on a replay of it: ... a POST retried because it failed finds the dispatch failed already".
  // The dispatch's send answer lost (`unknown`: it learns its wamid from the status), or kept.
  it.each([
    ['lost', ''],
    ['kept', 'wamid'],
  ])('a 131050 whose opt-out write failed is recorded when Meta retries the POST (send answer %s)', async (_answer, kept) => {
    const { own } = await setup();
    const wamid = `wamid.${kept || 'lost'}.${own.number}`;
    const dispatchId = await sent(own.id, '081234560001', kept && wamid);
    expect((await getDispatchById(dispatchId, env.table))!.status).toBe(kept ? 'sent' : 'unknown');
    const { dynamo } = await import('../../lambdas/shared/clients');
    let armed = true;
    dynamo.middlewareStack.add(
      (next) => async (args) => {
        if (armed && JSON.stringify(args.input).includes('OPTOUT#')) {
          armed = false;
          throw Object.assign(new Error('Throughput exceeds the current capacity of your table'), { name: 'ProvisionedThroughputExceededException', $fault: 'server' });
        }
        return next(args);
      },
      { step: 'initialize', name: 'optOutBlip' },
    );
    const stopped = 'Unable to deliver the message. This recipient has chosen to stop receiving marketing messages on WhatsApp from your business.';
    const body = JSON.stringify(statusPost(own.number, [failed(wamid, dispatchId, [metaError(131050, stopped, stopped)])]));
    const signed = { body, headers: { 'Content-Type': 'application/json', 'X-Hub-Signature-256': signWebhookBody(body, process.env.WHATSAPP_APP_SECRET!) } };
    try {
      // Answered 5xx: Meta retries it.
      expect((await invokeRoute('whatsappWebhook', h.webhook!, signed)).statusCode).toBeGreaterThanOrEqual(500);
    } finally {
      dynamo.middlewareStack.remove('optOutBlip');
    }
    // Meta's retry of the same POST.
    expect((await invokeRoute('whatsappWebhook', h.webhook!, signed)).statusCode).toBe(200);
    await runStreamConsumer(env.table);
    expect((await getMessage(own.key, dispatchId)).body).toMatchObject({ status: 'failed', failureCode: '131050' });
    expect(await listMarketingOptOuts(own.id, env.table)).toEqual([expect.objectContaining({ phone: '+6281234560001', source: 'whatsapp' })]);
  });

  // DESIGN.md: `duplicate_send` when "the same template already went to the same number that WIB day";
  // docs/api.md#dedupe: "A rejected send ... does not count"; docs/api.md#send-check: a failed dispatch is not a send.
  const failItLate = async (ws: { number: string }, dispatchId: string, workspaceId: string) => {
    const wamid = `wamid.dedupe.${ws.number}`;
    const provider = { send: () => Promise.resolve({ providerMessageId: wamid }), settle: () => Promise.resolve() };
    await deliverDispatch({ dispatchId, workspaceId, receiveCount: 1, maxReceives: 5 }, { providerFor: () => provider, store: env.table });
    await runStreamConsumer(env.table);
    await post(statusPost(ws.number, [failed(wamid, dispatchId, [metaError(131026, 'Message undeliverable', 'Message Undeliverable.')])]));
    return '131026';
  };
  // No verdict of WhatsApp's, so no REJECTED event: the fifth "later" fails the dispatch all the same.
  const failItAfterRetries = async (_ws: { number: string }, dispatchId: string, workspaceId: string) => {
    const later = { send: () => Promise.reject(new ProviderError('transient', '131000', 'Something went wrong')), settle: () => Promise.resolve() };
    for (const receiveCount of [1, 2, 3, 4, 5]) await deliverDispatch({ dispatchId, workspaceId, receiveCount, maxReceives: 5 }, { providerFor: () => later, store: env.table });
    return 'retries_exhausted:131000';
  };

  // DESIGN.md: `duplicate_send` when "the same template already went to the same number that WIB day";
  // docs/api.md#dedupe: "A rejected send ... does not count"; docs/api.md#send-check: a failed dispatch is not a send.
  it.each([
    ['WhatsApp reports the template failed', failItLate],
    ['WhatsApp answered "later" on every try', failItAfterRetries],
  ])('dedupe wib-day: after %s, send-check says not sent and a new send of it is accepted', async (_case, failIt) => {
    // Three sends through the handler, each on the real clock: they must share a WIB day.
    await clearOfWibMidnight();
    const id = randomUUID().slice(0, 8);
    const ws = { id: `ws-rc-d-${id}`, number: `rc-d-${id}`, key: generateApiKey() };
    await saveWorkspace({ id: ws.id, name: ws.id, rupiahPerCredit: 150, settings: { whatsappPhoneNumberId: ws.number, dedupe: 'wib-day' } }, new Date(), env.table);
    await saveTemplate(ws.id, template, env.table);
    await saveApiKey(ws.key, { workspaceId: ws.id, name: 'rc', scopes: ['messages:read', 'messages:send'] }, new Date(), env.table);
    const sendHandler = ((await import('../../lambdas/handlers/send-message')) as { handler: RouteHandler }).handler;
    const checkHandler = ((await import('../../lambdas/handlers/send-check')) as { handler: RouteHandler }).handler;
    const sendBody = { channel: 'whatsapp', to: '081234560001', content: { type: 'template', templateId: TEMPLATE_ID, variables: { name: 'Sari', order: 'A-1' } } };

    const first = parseResult(await invokeRoute('sendMessage', sendHandler, { apiKey: ws.key, body: sendBody }));
    expect(first.status).toBe(202);
    const dispatchId = first.body.dispatchId as string;
    const failureCode = await failIt(ws, dispatchId, ws.id);
    await runStreamConsumer(env.table);
    expect((await getMessage(ws.key, dispatchId)).body).toMatchObject({ status: 'failed', failureCode });

    const check = parseResult(await invokeRoute('sendCheck', checkHandler, { apiKey: ws.key, query: { phone: '081234560001', templateId: TEMPLATE_ID } }));
    expect(check.body).toEqual({ sent: false, dispatchId: null, submittedAt: null });
    const again = parseResult(await invokeRoute('sendMessage', sendHandler, { apiKey: ws.key, body: sendBody }));
    expect([again.status, again.body.error ?? again.body.status]).toEqual([202, 'queued']);

    // The day's send is the new one's now: the first's failure, handed over again by the stream, does not give it back.
    await runStreamConsumer(env.table, { again: true });
    const third = parseResult(await invokeRoute('sendMessage', sendHandler, { apiKey: ws.key, body: sendBody }));
    expect([third.status, third.body.error]).toEqual([409, 'duplicate_send']);
  });

  it('a failed status for another workspace’s answer-lost (unknown) dispatch, on our number, never touches it', async () => {
    const { own, other } = await setup();
    const theirs = await sent(other.id, '081234560001', ''); // unknown: its number learned from no answer
    await post(statusPost(own.number, [failed(`wamid.x.${own.number}`, theirs, [metaError(131050, 'stopped')])]));
    expect((await getMessage(other.key, theirs)).body).toMatchObject({ status: 'unknown', failureCode: null });
    expect(await listMarketingOptOuts(other.id, env.table)).toEqual([]);
    expect(await listMarketingOptOuts(own.id, env.table)).toEqual([]);
  });

  // Meta's reference: a failed status carries errors[] with code, title, message, error_data.details.
  // One whose error lacks a field we do not need (the code is what we keep; here the title is null) is still WhatsApp saying it failed.
  it('a failed status whose error has a null title still fails the dispatch (not left sent and counted)', async () => {
    const { own } = await setup();
    const wamid = `wamid.nulltitle.${own.number}`;
    const dispatchId = await sent(own.id, '081234560001', wamid);
    await post(statusPost(own.number, [failed(wamid, dispatchId, [{ code: 131026, title: null, message: 'Message undeliverable', error_data: { details: 'Message Undeliverable.' } }])]));
    expect((await getMessage(own.key, dispatchId)).body).toMatchObject({ status: 'failed', failureCode: '131026' });
    expect((await summary(own.key)).items[0]).toMatchObject({ dispatchCount: 0, amountRupiah: 0 });
  });

  // Meta's failure can come while its answer to our send is still on its way: the echoed dispatch id finds the
  // dispatch before our sent write does.
  it('a failed status that overtakes our own sent write: failed once, never counted, REJECTED once', async () => {
    const { own } = await setup();
    const { dispatchId } = await sendTemplateMessage(
      { workspaceId: own.id, apiClient: { id: randomUUID(), name: 'k' }, to: '081234560001', templateId: TEMPLATE_ID, variables: { name: 'Sari', order: 'A-1' }, tagIds: [], trackingTags: ['promo'], now: SENT_AT },
      { store: env.table, queue: env.queues },
    );
    const wamid = `wamid.overtake.${own.number}`;
    const provider = {
      send: async () => {
        // WhatsApp's failed status arrives while the provider call is still being answered.
        await post(statusPost(own.number, [failed(wamid, dispatchId, [metaError(131049, 'This message was not delivered to maintain healthy ecosystem engagement.', 'In order to maintain a healthy ecosystem engagement, the message failed to be delivered.')])]));
        return { providerMessageId: wamid };
      },
      settle: () => Promise.resolve(),
    };
    await deliverDispatch({ dispatchId, workspaceId: own.id, receiveCount: 1, maxReceives: 5 }, { providerFor: () => provider, store: env.table, now: () => SENT_AT });
    await runStreamConsumer(env.table);
    expect((await getMessage(own.key, dispatchId)).body).toMatchObject({ status: 'failed', failureCode: '131049' });
    const { items } = await deliveryEvents(own.key, '+6281234560001');
    expect(items[0]!.events.map((event) => event.status)).toEqual(['REJECTED']);
    expect((await summary(own.key)).items[0]).toMatchObject({ dispatchCount: 0, amountRupiah: 0 });
  });

  // The wamid's item is the deliver consumer's, put before its sent move (decision 196): a failure without the echo in
  // the second after the send (before the table's stream consumer runs) finds its dispatch. It was skipped, answered 200
  // so Meta never sent it again, and the message stayed `sent`, counted, its number never opted out.
  it('a failed status without the echoed dispatch id, arriving before the table’s stream consumer runs, fails the dispatch and opts the number out', async () => {
    const { own } = await setup();
    const wamid = `wamid.unechoed.${own.number}`;
    const dispatchId = await sent(own.id, '081234560001', wamid, { streamed: false });
    await post(statusPost(own.number, [failed(wamid, undefined, [metaError(131050, 'Unable to deliver the message. This recipient has chosen to stop receiving marketing messages on WhatsApp from your business.')])]));

    expect((await getMessage(own.key, dispatchId)).body).toMatchObject({ status: 'failed', failureCode: '131050' });
    expect(await listMarketingOptOuts(own.id, env.table)).toHaveLength(1);
    const { items } = await deliveryEvents(own.key, '+6281234560001');
    expect(items[0]!.events.map((event) => [event.status, event.failureCode ?? null])).toEqual([
      ['ACCEPTED', null],
      ['REJECTED', '131050'],
    ]);
    expect((await summary(own.key)).items[0]).toMatchObject({ dispatchCount: 0, amountRupiah: 0 });
  });
});
