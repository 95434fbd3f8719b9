import { randomUUID } from 'node:crypto';
import { deliverQueuedDispatch } from '../../lambdas/domain/delivery/deliver-dispatch';
import { claimDispatch } from '../../lambdas/domain/delivery/delivery-attempt';
import { DEAD_ATTEMPT_UNKNOWN_MS, reconcile, REPORT_SILENCE_MS, UNKNOWN_NOTICE_MS } from '../../lambdas/domain/delivery/reconcile';
import { noteReport } from '../../lambdas/domain/delivery/report-evidence';
import { applyProviderReports } from '../../lambdas/domain/delivery/provider-reports';
import { getDispatch } from '../../lambdas/domain/messages/dispatch-repository';
import { sendTemplateMessage } from '../../lambdas/domain/messages/send-message';
import { ProviderError, type Provider } from '../../lambdas/domain/providers/provider';
import { whatsAppCloudProvider } from '../../lambdas/domain/providers/whatsapp-cloud';
import { webhookEnvelopeSchema } from '../../lambdas/domain/providers/whatsapp-webhook';
import { saveTemplate } from '../../lambdas/domain/templates/template-repository';
import type { Store } from '../../lambdas/shared/store';
import { runAdmin } from '../../lib/admin/cli';
import { startGraphStub, type GraphStub } from '../support/graph-stub';
import { template, TEMPLATE_ID } from '../support/send-fixtures';
import { useTableAndQueues } from '../support/sqs';
import { resetContainerCaches } from '../../lib/testing';

/**
 * README ("For platform teams"): the stack's secret holds `phoneNumberId`, the number a WhatsApp
 * workspace without one of its own sends from. WhatsApp reports each message's fate on the number
 * it was sent from, which no workspace owns (decision 52): those statuses apply to the dispatches
 * of workspaces that send from it, and to no other (decision 171). A dispatch keeps the number it
 * was sent from, so its statuses still apply after that number is bound to a workspace or moved
 * to another (decision 178), and so does a message whose send left only its claim, which names the
 * number too, the default one included (decisions 181, 219).
 */
const env = useTableAndQueues();
const DEFAULT_NUMBER = '106540352242922';
let graph: GraphStub;
beforeAll(async () => (graph = await startGraphStub()));
afterAll(() => graph.close());

const admin = (...argv: string[]) => runAdmin(argv, { out: () => {}, err: () => {}, env: {}, target: async () => ({ ...env.table, description: 'test table' }) });

/** The Cloud API provider on the Graph stub, with the stack's secret naming its default number. */
const cloudProvider = (timeoutMs = 2_000, defaultNumber = DEFAULT_NUMBER) =>
  whatsAppCloudProvider({
    baseUrl: graph.baseUrl,
    timeoutMs,
    credentials: () => Promise.resolve({ accessToken: 'token-1', appSecret: 's', verifyToken: 'v', phoneNumberId: defaultNumber }),
  });

/** A queued dispatch of a new WhatsApp workspace (its own number or none). */
async function queuedDispatch(ownNumber?: string): Promise<{ ws: string; dispatchId: string }> {
  const ws = `ws-${randomUUID().slice(0, 8)}`;
  expect(await admin('workspace', 'create', '--id', ws, '--name', 'Acme', '--rupiah-per-credit', '150')).toBe(0);
  expect(await admin('workspace', 'update', '--id', ws, '--provider', 'whatsapp', ...(ownNumber ? ['--whatsapp-phone-number-id', ownNumber] : []))).toBe(0);
  await saveTemplate(ws, template, env.table);
  const { dispatchId } = await sendTemplateMessage(
    { workspaceId: ws, apiClient: { id: randomUUID(), name: 'k' }, to: '081234560001', templateId: TEMPLATE_ID, variables: { name: 'Budi', order: '1' }, tagIds: [], trackingTags: [], now: new Date() },
    { store: env.table, queue: env.queues },
  );
  return { ws, dispatchId };
}

/** A WhatsApp workspace (its own number or none) with one dispatch sent through the Cloud API. */
async function sentDispatch(ownNumber?: string): Promise<{ ws: string; dispatchId: string; wamid: string }> {
  const { ws, dispatchId } = await queuedDispatch(ownNumber);
  const wamid = `wamid.default-${randomUUID()}`;
  graph.answer = () => ({ status: 200, body: { messaging_product: 'whatsapp', messages: [{ id: wamid }] } });
  const provider = cloudProvider();
  expect(await deliverQueuedDispatch({ dispatchId, workspaceId: ws, receiveCount: 1, maxReceives: 5 }, { providerFor: () => provider, store: env.table })).toEqual({ outcome: 'sent' });
  return { ws, dispatchId, wamid };
}

/** WhatsApp's status webhook (Meta's `messages` field with `statuses`), on `phoneNumberId`, for a message it could not deliver. */
const failedOn = (phoneNumberId: string, wamid: string, dispatchId: string) =>
  webhookEnvelopeSchema.parse({
    object: 'whatsapp_business_account',
    entry: [
      {
        id: '102290129340398',
        changes: [
          {
            field: 'messages',
            value: {
              messaging_product: 'whatsapp',
              metadata: { display_phone_number: '15550000000', phone_number_id: phoneNumberId },
              statuses: [
                {
                  id: wamid,
                  status: 'failed',
                  timestamp: String(Math.floor(Date.now() / 1000)),
                  recipient_id: '6281234560001',
                  biz_opaque_callback_data: dispatchId,
                  errors: [{ code: 131026, title: 'Message undeliverable', message: 'Message undeliverable' }],
                },
              ],
            },
          },
        ],
      },
    ],
  });

it('applies WhatsApp’s statuses on the stack’s default number to the dispatches sent from it', async () => {
  const { ws, dispatchId, wamid } = await sentDispatch();
  // Sent from the stack's default number.
  expect(graph.received.at(-1)?.url).toBe(`/v26.0/${DEFAULT_NUMBER}/messages`);

  const summary = await applyProviderReports(failedOn(DEFAULT_NUMBER, wamid, dispatchId), env.table);

  expect(summary).toMatchObject({ statuses: 1, applied: 1, skipped: 0 });
  expect(await getDispatch(ws, dispatchId, env.table)).toMatchObject({ status: 'failed', failureCode: '131026' });
});

it('still skips a status on a number no workspace owns for a workspace that sends from its own number', async () => {
  const { ws, dispatchId, wamid } = await sentDispatch(`1065${Date.now()}`.slice(0, 15));

  const summary = await applyProviderReports(failedOn(DEFAULT_NUMBER, wamid, dispatchId), env.table);

  expect(summary).toMatchObject({ statuses: 1, applied: 0, skipped: 1 });
  expect(await getDispatch(ws, dispatchId, env.table)).toMatchObject({ status: 'sent' });
});

it('keeps applying the statuses of a message sent from the default number after the number is bound to another workspace', async () => {
  const { ws: v, dispatchId, wamid } = await sentDispatch();
  // webhook-items-skipped's "Do" for replies skipped `unowned_number`: the number becomes W's.
  const w = `ws-${randomUUID().slice(0, 8)}`;
  expect(await admin('workspace', 'create', '--id', w, '--name', 'Owner', '--rupiah-per-credit', '150', '--provider', 'whatsapp')).toBe(0);
  expect(await admin('workspace', 'update', '--id', w, '--whatsapp-phone-number-id', DEFAULT_NUMBER)).toBe(0);

  const summary = await applyProviderReports(failedOn(DEFAULT_NUMBER, wamid, dispatchId), env.table);

  expect(summary).toMatchObject({ statuses: 1, applied: 1, skipped: 0 });
  expect(await getDispatch(v, dispatchId, env.table)).toMatchObject({ status: 'failed', failureCode: '131026' });
  expect(await admin('workspace', 'update', '--id', w, '--whatsapp-phone-number-id', 'none')).toBe(0);
});

it('keeps applying the statuses of a message sent from a workspace’s number after that number moves to another workspace', async () => {
  const n = `1066${Date.now()}`.slice(0, 15);
  const { ws: a, dispatchId, wamid } = await sentDispatch(n);
  expect(await admin('workspace', 'update', '--id', a, '--whatsapp-phone-number-id', 'none')).toBe(0);
  const b = `ws-${randomUUID().slice(0, 8)}`;
  expect(await admin('workspace', 'create', '--id', b, '--name', 'New owner', '--rupiah-per-credit', '150', '--provider', 'whatsapp', '--whatsapp-phone-number-id', n)).toBe(0);
  // Past the minute a container trusts a number's owner (decision 122).
  resetContainerCaches();

  const summary = await applyProviderReports(failedOn(n, wamid, dispatchId), env.table);

  expect(summary).toMatchObject({ statuses: 1, applied: 1, skipped: 0 });
  expect(await getDispatch(a, dispatchId, env.table)).toMatchObject({ status: 'failed', failureCode: '131026' });
});

it('does not apply a status on another workspace’s number to a dispatch sent from a number of its own', async () => {
  const { ws, dispatchId, wamid } = await sentDispatch(`1067${Date.now()}`.slice(0, 15));
  const other = `1068${Date.now()}`.slice(0, 15);
  expect(await admin('workspace', 'create', '--id', `ws-${randomUUID().slice(0, 8)}`, '--name', 'Other', '--rupiah-per-credit', '150', '--provider', 'whatsapp', '--whatsapp-phone-number-id', other)).toBe(0);

  const summary = await applyProviderReports(failedOn(other, wamid, dispatchId), env.table);

  expect(summary).toMatchObject({ statuses: 1, applied: 0, skipped: 1 });
  expect(await getDispatch(ws, dispatchId, env.table)).toMatchObject({ status: 'sent' });
});

it('keeps applying the statuses of messages sent before a workspace changed its own number, from the default number or its former one', async () => {
  const { ws: fromDefault, dispatchId: first, wamid: firstWamid } = await sentDispatch();
  // The CLI's advice to a workspace on the default number: name its own.
  expect(await admin('workspace', 'update', '--id', fromDefault, '--whatsapp-phone-number-id', `1077${Date.now()}`.slice(0, 15))).toBe(0);
  const former = `1088${Date.now()}`.slice(0, 15);
  const { ws: moved, dispatchId: second, wamid: secondWamid } = await sentDispatch(former);
  expect(await admin('workspace', 'update', '--id', moved, '--whatsapp-phone-number-id', `1099${Date.now()}`.slice(0, 15))).toBe(0);
  resetContainerCaches();

  expect(await applyProviderReports(failedOn(DEFAULT_NUMBER, firstWamid, first), env.table)).toMatchObject({ statuses: 1, applied: 1, skipped: 0 });
  expect(await applyProviderReports(failedOn(former, secondWamid, second), env.table)).toMatchObject({ statuses: 1, applied: 1, skipped: 0 });
  expect(await getDispatch(fromDefault, first, env.table)).toMatchObject({ status: 'failed', failureCode: '131026' });
  expect(await getDispatch(moved, second, env.table)).toMatchObject({ status: 'failed', failureCode: '131026' });
});

it('learns the number from a status that came before our own sent write, so later statuses still apply after the number moves', async () => {
  const n = `1069${Date.now()}`.slice(0, 15);
  const ws = `ws-${randomUUID().slice(0, 8)}`;
  expect(await admin('workspace', 'create', '--id', ws, '--name', 'Acme', '--rupiah-per-credit', '150', '--provider', 'whatsapp', '--whatsapp-phone-number-id', n)).toBe(0);
  await saveTemplate(ws, template, env.table);
  const { dispatchId } = await sendTemplateMessage(
    { workspaceId: ws, apiClient: { id: randomUUID(), name: 'k' }, to: '081234560001', templateId: TEMPLATE_ID, variables: { name: 'Budi', order: '1' }, tagIds: [], trackingTags: [], now: new Date() },
    { store: env.table, queue: env.queues },
  );
  // The consumer claimed it and called WhatsApp; WhatsApp's report overtakes our own `sent` write.
  await claimDispatch(dispatchId, new Date(), env.table);
  const wamid = `wamid.early-${randomUUID()}`;
  const delivered = webhookEnvelopeSchema.parse({
    object: 'whatsapp_business_account',
    entry: [{ id: '102290129340398', changes: [{ field: 'messages', value: { messaging_product: 'whatsapp', metadata: { display_phone_number: '15550000000', phone_number_id: n }, statuses: [{ id: wamid, status: 'delivered', timestamp: String(Math.floor(Date.now() / 1000)), recipient_id: '6281234560001', biz_opaque_callback_data: dispatchId }] } }] }],
  });
  expect(await applyProviderReports(delivered, env.table)).toMatchObject({ statuses: 1, applied: 1 });

  expect(await admin('workspace', 'update', '--id', ws, '--whatsapp-phone-number-id', 'none')).toBe(0);
  expect(await admin('workspace', 'create', '--id', `ws-${randomUUID().slice(0, 8)}`, '--name', 'New owner', '--rupiah-per-credit', '150', '--provider', 'whatsapp', '--whatsapp-phone-number-id', n)).toBe(0);
  resetContainerCaches();

  expect(await applyProviderReports(failedOn(n, wamid, dispatchId), env.table)).toMatchObject({ statuses: 1, skipped: 0 });
  expect(await getDispatch(ws, dispatchId, env.table)).toMatchObject({ senderPhoneNumberId: n });
});

/** A queued dispatch of a new workspace that sends from its own number `n`. */
async function queuedOn(n: string): Promise<{ ws: string; dispatchId: string }> {
  const ws = `ws-${randomUUID().slice(0, 8)}`;
  expect(await admin('workspace', 'create', '--id', ws, '--name', 'Acme', '--rupiah-per-credit', '150', '--provider', 'whatsapp', '--whatsapp-phone-number-id', n)).toBe(0);
  await saveTemplate(ws, template, env.table);
  const { dispatchId } = await sendTemplateMessage(
    { workspaceId: ws, apiClient: { id: randomUUID(), name: 'k' }, to: '081234560001', templateId: TEMPLATE_ID, variables: { name: 'Budi', order: '1' }, tagIds: [], trackingTags: [], now: new Date() },
    { store: env.table, queue: env.queues },
  );
  return { ws, dispatchId };
}

/** The runbook's move: `ws` gives up `n` for `next`, and `n` becomes a new workspace's. */
async function moveNumber(ws: string, n: string, next: string): Promise<void> {
  expect(await admin('workspace', 'update', '--id', ws, '--whatsapp-phone-number-id', next)).toBe(0);
  expect(await admin('workspace', 'create', '--id', `ws-${randomUUID().slice(0, 8)}`, '--name', 'New owner', '--rupiah-per-credit', '150', '--provider', 'whatsapp', '--whatsapp-phone-number-id', n)).toBe(0);
  resetContainerCaches();
}

const deliveredOn = (phoneNumberId: string, dispatchId: string) =>
  webhookEnvelopeSchema.parse({
    object: 'whatsapp_business_account',
    entry: [{ id: '102290129340398', changes: [{ field: 'messages', value: { messaging_product: 'whatsapp', metadata: { display_phone_number: '15550000000', phone_number_id: phoneNumberId }, statuses: [{ id: `wamid.late-${randomUUID()}`, status: 'delivered', timestamp: String(Math.floor(Date.now() / 1000)), recipient_id: '6281234560001', biz_opaque_callback_data: dispatchId }] } }] }],
  });

it('applies WhatsApp’s report of a send whose answer timed out after its number moved to another workspace', async () => {
  const n = `1071${Date.now()}`.slice(0, 15);
  const { ws, dispatchId } = await queuedOn(n);
  // WhatsApp took the message, but its answer did not come in time: settled `unknown`, to wait for WhatsApp's report.
  const asked: (string | undefined)[] = [];
  const timedOut: Provider = {
    send: (message) => {
      asked.push(message.phoneNumberId);
      return Promise.reject(new ProviderError('unknown', 'timeout', 'WhatsApp did not answer within 10 s'));
    },
    settle: () => Promise.resolve(),
  };
  expect(await deliverQueuedDispatch({ dispatchId, workspaceId: ws, receiveCount: 1, maxReceives: 5 }, { providerFor: () => timedOut, store: env.table })).toEqual({ outcome: 'unknown' });
  expect(asked).toEqual([n]);

  await moveNumber(ws, n, 'none');

  expect(await applyProviderReports(deliveredOn(n, dispatchId), env.table)).toMatchObject({ statuses: 1, applied: 1, skipped: 0 });
  expect(await getDispatch(ws, dispatchId, env.table)).toMatchObject({ status: 'delivered' });
});

it('judges a dead claim by the number it was taken on, not the workspace’s number since: a move does not send it again, and WhatsApp’s report of it applies', async () => {
  const n = `1072${Date.now()}`.slice(0, 15);
  const { ws, dispatchId } = await queuedOn(n);
  // The consumer claims it and is killed in the provider call: whether WhatsApp took the message is unknown.
  let killed = false;
  const dying: Store = {
    tableName: env.table.tableName,
    db: { send: (command: never) => (killed ? Promise.reject(new Error('consumer killed')) : env.table.db.send(command)) } as unknown as Store['db'],
  };
  const killedInCall: Provider = {
    send: () => {
      killed = true;
      return Promise.reject(new Error('consumer killed'));
    },
    settle: () => Promise.resolve(),
  };
  expect(await deliverQueuedDispatch({ dispatchId, workspaceId: ws, receiveCount: 1, maxReceives: 5 }, { providerFor: () => killedInCall, store: dying })).toMatchObject({ outcome: 'retry' });
  const claimed = (await getDispatch(ws, dispatchId, env.table))!;
  expect(claimed).toMatchObject({ status: 'processing', attemptStartedAt: expect.any(String) });

  // The workspace moves to a number of its own, whose reports flow: they say nothing of a message sent from n.
  const next = `1073${Date.now()}`.slice(0, 15);
  await moveNumber(ws, n, next);
  await noteReport(next, new Date(Date.now() + 60_000).toISOString(), env.table);

  // Past the silence, and past a release's grace: the claim stands and nothing is queued again.
  const judgedAt = Date.parse(claimed.attemptStartedAt!) + REPORT_SILENCE_MS + 1_000;
  await env.queues.receiveAll();
  await reconcile(new Date(judgedAt), env.table, env.queues);
  expect(await getDispatch(ws, dispatchId, env.table)).toMatchObject({ status: 'processing', attemptStartedAt: claimed.attemptStartedAt });
  await reconcile(new Date(judgedAt + 5 * 60_000), env.table, env.queues);
  expect(await env.queues.receiveAll()).not.toContainEqual(expect.objectContaining({ dispatchId }));

  // WhatsApp had it: its report, on n, settles it.
  expect(await applyProviderReports(deliveredOn(n, dispatchId), env.table)).toMatchObject({ statuses: 1, applied: 1, skipped: 0 });
  expect(await getDispatch(ws, dispatchId, env.table)).toMatchObject({ status: 'delivered', senderPhoneNumberId: n });
});


it('applies WhatsApp’s report of a send from the default number whose answer timed out, after the workspace named a number of its own', async () => {
  const { ws, dispatchId } = await queuedDispatch();
  // WhatsApp took the message, but its answer did not come in time: `unknown`, waiting for WhatsApp's report.
  graph.answer = () => ({ status: 200, body: { messaging_product: 'whatsapp', messages: [{ id: `wamid.slow-${randomUUID()}` }] }, delayMs: 400 });
  const provider = cloudProvider(100);
  expect(await deliverQueuedDispatch({ dispatchId, workspaceId: ws, receiveCount: 1, maxReceives: 5 }, { providerFor: () => provider, store: env.table })).toEqual({ outcome: 'unknown' });
  expect(graph.received.at(-1)?.url).toBe(`/v26.0/${DEFAULT_NUMBER}/messages`);

  // The CLI's advice to a workspace on the default number: name its own.
  expect(await admin('workspace', 'update', '--id', ws, '--whatsapp-phone-number-id', `1077${Date.now()}`.slice(0, 15))).toBe(0);
  resetContainerCaches();

  // WhatsApp reports the message on the number it was sent from: the default one, which no workspace owns.
  expect(await applyProviderReports(deliveredOn(DEFAULT_NUMBER, dispatchId), env.table)).toMatchObject({ statuses: 1, applied: 1, skipped: 0 });
  expect(await getDispatch(ws, dispatchId, env.table)).toMatchObject({ status: 'delivered', senderPhoneNumberId: DEFAULT_NUMBER });
});

it('applies WhatsApp’s report of a dead claim on the default number, settled `unknown`, after the workspace named a number of its own', async () => {
  // A stack of its own default number: DEFAULT_NUMBER has reports kept from the test that bound it to a workspace.
  const stackNumber = `1079${Date.now()}`.slice(0, 15);
  const { ws, dispatchId } = await queuedDispatch();
  // The consumer claims it and is killed in the provider call.
  let killed = false;
  const dying: Store = {
    tableName: env.table.tableName,
    db: { send: (command: never) => (killed ? Promise.reject(new Error('consumer killed')) : env.table.db.send(command)) } as unknown as Store['db'],
  };
  const killedInCall: Provider = {
    ...cloudProvider(2_000, stackNumber),
    send: () => {
      killed = true;
      return Promise.reject(new Error('consumer killed'));
    },
  };
  expect(await deliverQueuedDispatch({ dispatchId, workspaceId: ws, receiveCount: 1, maxReceives: 5 }, { providerFor: () => killedInCall, store: dying })).toMatchObject({ outcome: 'retry' });
  const claimed = (await getDispatch(ws, dispatchId, env.table))!;
  expect(claimed).toMatchObject({ status: 'processing', senderPhoneNumberId: stackNumber });

  // No reports are kept for the default number: the reconciler settles the claim `unknown`, never sends it again.
  const dueAt = Date.parse(claimed.attemptStartedAt!) + DEAD_ATTEMPT_UNKNOWN_MS + 1_000;
  await env.queues.receiveAll();
  await reconcile(new Date(dueAt), env.table, env.queues);
  await reconcile(new Date(dueAt + UNKNOWN_NOTICE_MS), env.table, env.queues);
  expect(await getDispatch(ws, dispatchId, env.table)).toMatchObject({ status: 'unknown' });
  expect(await env.queues.receiveAll()).not.toContainEqual(expect.objectContaining({ dispatchId }));

  expect(await admin('workspace', 'update', '--id', ws, '--whatsapp-phone-number-id', `1078${Date.now()}`.slice(0, 15))).toBe(0);
  resetContainerCaches();

  // WhatsApp had it: its report, on the default number, settles it.
  expect(await applyProviderReports(deliveredOn(stackNumber, dispatchId), env.table)).toMatchObject({ statuses: 1, applied: 1, skipped: 0 });
  expect(await getDispatch(ws, dispatchId, env.table)).toMatchObject({ status: 'delivered' });
});

it('judges a claim on the default number that names none (taken before decision 219) by the workspace’s settings, as before', async () => {
  const { ws, dispatchId } = await queuedDispatch();
  await claimDispatch(dispatchId, new Date(), env.table);

  expect(await applyProviderReports(deliveredOn(DEFAULT_NUMBER, dispatchId), env.table)).toMatchObject({ statuses: 1, applied: 1, skipped: 0 });
  expect(await getDispatch(ws, dispatchId, env.table)).toMatchObject({ status: 'delivered', senderPhoneNumberId: DEFAULT_NUMBER });
});
