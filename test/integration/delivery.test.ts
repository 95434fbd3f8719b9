import { randomUUID } from 'node:crypto';
import { createServer } from 'node:http';
import { ChangeMessageVisibilityCommand, CreateQueueCommand, GetQueueAttributesCommand, ReceiveMessageCommand, SendMessageCommand } from '@aws-sdk/client-sqs';
import { deliverDispatch, deliverQueuedDispatch, STALE_ATTEMPT_MS, VERDICT_WRITE_DEADLINE_MS, type DeliveryAttempt } from '../../lambdas/domain/delivery/deliver-dispatch';
import { claimDispatch, CLAIM_OUTCOME_DEADLINE_MS, releaseClaim } from '../../lambdas/domain/delivery/delivery-attempt';
import { applyStatus } from '../../lambdas/domain/delivery/dispatch-status';
import { clearNumberPaces, paceDeliveries } from '../../lambdas/domain/delivery/number-pace';
import { applyProviderReports } from '../../lambdas/domain/delivery/provider-reports';
import { findProviderMessage } from '../../lambdas/domain/delivery/provider-message';
import { DEAD_ATTEMPT_UNKNOWN_MS, PACED_REPORT_SILENCE_MS, QUEUED_GRACE_MS, RELEASED_GRACE_MS, reconcile, REPORT_SILENCE_MS, UNKNOWN_NOTICE_MS } from '../../lambdas/domain/delivery/reconcile';
import { listConversations } from '../../lambdas/domain/conversations/read-conversations';
import { dispatchItem, getDispatch, getDispatchById } from '../../lambdas/domain/messages/dispatch-repository';
import { enqueueDispatch, requeueDispatches, type DispatchMessage } from '../../lambdas/domain/messages/dispatch-queue';
import { sendTemplateMessage } from '../../lambdas/domain/messages/send-message';
import { ProviderError, type Provider } from '../../lambdas/domain/providers/provider';
import { clearSandboxCalls, sandboxCallCount, sandboxProvider } from '../../lambdas/domain/providers/sandbox';
import { statusWebhook, type WebhookPayload } from '../../lambdas/domain/providers/whatsapp-webhook';
import { saveTemplate } from '../../lambdas/domain/templates/template-repository';
import { clearWorkspaceCache } from '../../lambdas/domain/workspaces/workspace-lookup';
import { saveWorkspace } from '../../lambdas/domain/workspaces/workspace-repository';
import type { Store } from '../../lambdas/shared/store';
import { batchPut, batchWrite } from '../../lambdas/shared/batch-write';
import { keys, PENDING_SHARDS } from '../../lambdas/shared/table';
import { GetCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import type { BuildMiddleware } from '@smithy/types';
import { runAdmin } from '../../lib/admin/cli';
import { startQueuePoller } from '../../lib/local/queue-poller';
import { whatsAppCloudProvider } from '../../lambdas/domain/providers/whatsapp-cloud';
import { startGraphStub, type GraphStub } from '../support/graph-stub';
import { template, TEMPLATE_ID, wideTemplate, WIDE_TEMPLATE_ID, wideVariables } from '../support/send-fixtures';
import { captureLogLines } from '../support/log-lines';
import { sendCommand } from '../support/send-commands';
import { useTableAndQueues } from '../support/sqs';
import { inboundTextWebhook } from '../support/webhooks';
import { runStreamConsumer } from '../support/stream-consumer';
import { emulateRefusedWrites, emulateTransactionConflicts } from '../support/transaction-conflicts';
import { CONFLICT_RETRIES } from '../../lambdas/shared/writes';

const env = useTableAndQueues();


afterEach(() => env.queues.receiveAll());

/** A provider whose answers the test scripts, counting every call per dispatch. */
function scriptedProvider(...answers: (() => Promise<{ providerMessageId: string; held?: boolean }>)[]) {
  const calls: string[] = [];
  const provider: Provider = {
    send: (message) => {
      calls.push(message.dispatchId);
      const next = answers[Math.min(calls.length - 1, answers.length - 1)]!;
      return next();
    },
    settle: () => Promise.resolve(),
  };
  return { provider, calls };
}
const accept = () => Promise.resolve({ providerMessageId: `wamid.${randomUUID()}` });
/** WhatsApp took the message but holds it while it assesses the template's quality (template pacing). */
const acceptHeld = () => Promise.resolve({ providerMessageId: `wamid.${randomUUID()}`, held: true });
const refuse = (kind: ProviderError['kind'], code: string) => () => Promise.reject(new ProviderError(kind, code, code));

/** A moment before the reports these tests replay (from 2026-01-01T00:00:00Z): none predates its dispatch. */
const BEFORE_REPORTS = new Date('2025-12-31T23:59:00.000Z');

async function queuedDispatch(trackingTags = ['promo', 'launch'], createdAt = new Date()) {
  const ws = `ws-${randomUUID().slice(0, 8)}`;
  await saveWorkspace({ id: ws, name: ws, rupiahPerCredit: 150 }, new Date(), env.table);
  await saveTemplate(ws, template, env.table);
  const { dispatchId } = await sendTemplateMessage(
    { workspaceId: ws, apiClient: { id: randomUUID(), name: 'k' }, to: '081234567890', templateId: TEMPLATE_ID, variables: { name: 'B', order: '1' }, tagIds: [], trackingTags, now: createdAt },
    { store: env.table, queue: env.queues },
  );
  return { ws, dispatchId };
}
/** Another dispatch in workspace `ws`, queued now. */
async function sendAfter(ws: string): Promise<string> {
  const { dispatchId } = await sendTemplateMessage(
    { workspaceId: ws, apiClient: { id: randomUUID(), name: 'k' }, to: '081234567891', templateId: TEMPLATE_ID, variables: { name: 'C', order: '2' }, tagIds: [], trackingTags: [], now: new Date() },
    { store: env.table, queue: env.queues },
  );
  return dispatchId;
}
/** A dispatch of the wide template (another template than `queuedDispatch`'s) in workspace `ws`, queued now. */
async function sendOfAnotherTemplate(ws: string): Promise<string> {
  await saveTemplate(ws, wideTemplate, env.table);
  const { dispatchId } = await sendTemplateMessage(
    { workspaceId: ws, apiClient: { id: randomUUID(), name: 'k' }, to: '081234567892', templateId: WIDE_TEMPLATE_ID, variables: wideVariables, tagIds: [], trackingTags: [], now: new Date() },
    { store: env.table, queue: env.queues },
  );
  return dispatchId;
}
/** The number's report on `dispatchId`, as WhatsApp sends it (the dispatch id as callback data). */
const reportOn = (ws: string, dispatchId: string, status: 'sent' | 'delivered') =>
  applyProviderReports(statusWebhook(`sandbox:${ws}`, [{ id: `wamid.${randomUUID()}`, status, timestamp: String(Math.floor(Date.now() / 1000)), biz_opaque_callback_data: dispatchId }]), env.table);
/** Stands in for our webhook: keeps what the sandbox reports, for the test to deliver when it chooses. */
async function reportCatcher() {
  const bodies: WebhookPayload[] = [];
  const server = createServer((request, response) => {
    let body = '';
    request.on('data', (chunk: Buffer) => (body += chunk.toString()));
    request.on('end', () => {
      bodies.push(JSON.parse(body) as WebhookPayload);
      response.end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { url: `http://127.0.0.1:${(server.address() as { port: number }).port}/webhooks/whatsapp`, bodies, close: () => new Promise((resolve) => server.close(resolve)) };
}
const attempt = (dispatchId: string, workspaceId: string, receiveCount = 1): DeliveryAttempt => ({ dispatchId, workspaceId, receiveCount, maxReceives: 5 });
const deliver = (dispatchId: string, workspaceId: string, provider: Provider, receiveCount = 1, now?: Date) =>
  deliverDispatch(attempt(dispatchId, workspaceId, receiveCount), { providerFor: () => provider, store: env.table, ...(now ? { now: () => now } : {}) });
/**
 * A dispatch's items: its own, its tag links (in their tags' partitions) and its delivery events (in
 * their number's), once the table's stream consumer has taken its changes (the events, decision 112).
 */
const itemsOf = async (dispatchId: string) => {
  await runStreamConsumer(env.table);
  return (await env.table.scanAll()).filter((item) => item.pk === `DSP#${dispatchId}` || ((item.entity === 'deliveryEvent' || item.entity === 'tagLink') && item.dispatchId === dispatchId));
};
/** An item of `itemsOf` by what it is: `DSP`, `TAG#<tag>`, `EVT#<status>` or the reconciler's `DEAD#<attemptStartedAt>`. */
const labelOf = (item: Record<string, unknown>) =>
  item.entity === 'deliveryEvent' ? `EVT#${String(item.status)}` : item.entity === 'tagLink' ? `TAG#${String(item.pk).split('#TAG#')[1]}` : String(item.sk);
/** What `work` returned, the partition key of each GetItem it made through the table's client, in order, and each other call's command and key. */
async function itemsRead<T>(work: () => Promise<T>): Promise<{ result: T; read: string[]; written: string[] }> {
  const read: string[] = [];
  const written: string[] = [];
  const name = `items-read-${randomUUID()}`;
  // At the build step the document client has marshalled the key: `{ S: '…' }`.
  const recordCalls: BuildMiddleware<object, object> = (next, context) => (args) => {
    if (context.commandName === 'GetItemCommand') read.push(String((args.input as { Key: { pk: { S: string } } }).Key.pk.S));
    else written.push(`${context.commandName} ${String((args.input as { Key?: { pk: { S: string } } }).Key?.pk.S)}`);
    return next(args);
  };
  env.table.db.middlewareStack.add(recordCalls as never, { step: 'build', name });
  try {
    return { result: await work(), read, written };
  } finally {
    env.table.db.middlewareStack.remove(name);
  }
}
/** A workspace's rollup items, once the table's stream readers have taken its changes (the report projection, decision 113). */
const rollupsOf = async (ws: string) => {
  await runStreamConsumer(env.table);
  return (await env.table.scanAll()).filter((item) => typeof item.pk === 'string' && (item.pk.startsWith(`WS#${ws}#RT#`) || item.pk.startsWith(`WS#${ws}#RD#`) || item.pk === `WS#${ws}#RW`));
};
/** What a workspace's rollups count, by kind: day, tag, day-tag (their shards summed). */
const countsOf = async (ws: string) => {
  const rollups = await rollupsOf(ws);
  return ['dayRollup', 'tagRollup', 'dayTagRollup'].map((entity) => rollups.filter((item) => item.entity === entity).reduce((sum, item) => sum + (item.dispatchCount as number), 0));
};

/**
 * A queued dispatch whose provider accepts it, with DynamoDB refusing every write of the dispatch
 * with `name` from the provider's call on, while `during` runs (the claim before it is taken).
 * Afterwards, whatever `during` did: the provider was called once, and nothing was recorded (the
 * dispatch still `processing`, no rollup).
 */
async function whileStatusWritesRefused<T>(
  name: Parameters<typeof emulateRefusedWrites>[1]['name'],
  during: (context: { ws: string; dispatchId: string; provider: ReturnType<typeof scriptedProvider>['provider']; refusedSoFar: () => number }) => Promise<T>,
) {
  const { ws, dispatchId } = await queuedDispatch(['promo']);
  let called = false;
  const { provider, calls } = scriptedProvider(() => {
    called = true;
    return accept();
  });
  const refusing = emulateRefusedWrites(env.table.db, { on: (pk) => pk === `DSP#${dispatchId}`, name, refusing: () => called });
  let result: T;
  try {
    result = await during({ ws, dispatchId, provider, refusedSoFar: () => refusing.stats.refused });
  } finally {
    refusing.remove();
  }
  expect(calls).toEqual([dispatchId]);
  expect(await getDispatch(ws, dispatchId, env.table)).toMatchObject({ status: 'processing', sentAt: null });
  expect(await rollupsOf(ws)).toEqual([]);
  return { ws, dispatchId, result, refused: refusing.stats.refused };
}

describe('the deliver consumer against DynamoDB Local', () => {
  it('sends once, and writes the ACCEPTED event, tag links and rollups exactly once however often the message comes back', async () => {
    const { ws, dispatchId } = await queuedDispatch();
    const { provider, calls } = scriptedProvider(accept);

    expect(await deliver(dispatchId, ws, provider)).toBe('sent');
    expect(await deliver(dispatchId, ws, provider, 2)).toBe('skipped');
    expect(await applyStatus(dispatchId, { to: 'sent', occurredAt: new Date().toISOString() }, env.table)).toBe(false);

    expect(calls).toEqual([dispatchId]);
    expect(await getDispatch(ws, dispatchId, env.table)).toMatchObject({ status: 'sent', sentAt: expect.any(String) });
    expect((await itemsOf(dispatchId)).map(labelOf).sort()).toEqual(['DSP', 'EVT#ACCEPTED', 'TAG#launch', 'TAG#promo']);
    // The stream's records handed to the publisher again, as a retried batch is: nothing more is written.
    const before = await env.table.scanAll();
    await runStreamConsumer(env.table, { again: true });
    expect(await env.table.scanAll()).toEqual(before);
    const rollups = await rollupsOf(ws);
    expect(rollups.map((item) => [item.entity, item.trackingTag ?? null, item.dispatchCount, item.credits ?? null]).sort()).toEqual([
      ['dayRollup', null, 1, null],
      ['dayTagRollup', 'launch', 1, null],
      ['dayTagRollup', 'promo', 1, null],
      ['tagRollup', 'launch', 1, 2],
      ['tagRollup', 'promo', 1, 2],
    ]);
  });

  it('fits a dispatch with the maximum 20 tags into one first-report transaction', async () => {
    const tags = Array.from({ length: 20 }, (_, i) => `tag-${i}`);
    const { ws, dispatchId } = await queuedDispatch(tags);
    expect(await deliver(dispatchId, ws, scriptedProvider(accept).provider)).toBe('sent');
    expect((await itemsOf(dispatchId)).filter((item) => item.entity === 'tagLink')).toHaveLength(20);
    expect(await rollupsOf(ws)).toHaveLength(20 * 2 + 1);
  });

  it('takes a late failure decided on a stale read back out of the reports all the same: the write holds the decision to the `sentAt` it read', async () => {
    const { ws, dispatchId } = await queuedDispatch(['promo']);
    await claimDispatch(dispatchId, new Date(), env.table);
    const readWhileProcessing = (await getDispatch(ws, dispatchId, env.table))!;
    expect(readWhileProcessing).toMatchObject({ status: 'processing', sentAt: null });
    // WhatsApp's `sent` lands first; a failure decided on the read from before it follows.
    expect(await applyStatus(dispatchId, { to: 'sent', occurredAt: new Date().toISOString(), providerMessageId: `wamid.${dispatchId}` }, env.table)).toBe(true);
    expect(await applyStatus(dispatchId, { to: 'failed', occurredAt: new Date().toISOString(), failureCode: '131047', event: 'REJECTED' }, env.table, readWhileProcessing)).toBe(true);

    expect(await getDispatch(ws, dispatchId, env.table)).toMatchObject({ status: 'failed', sentAt: expect.any(String) });
    expect(await countsOf(ws)).toEqual([0, 0, 0]);
    expect((await itemsOf(dispatchId)).map(labelOf).sort()).toEqual(['DSP', 'EVT#ACCEPTED', 'EVT#REJECTED']);
  });

  it('takes a dispatch that fails after being sent back out of the reports', async () => {
    const { ws, dispatchId } = await queuedDispatch(['promo']);
    await deliver(dispatchId, ws, scriptedProvider(accept).provider);
    expect(await countsOf(ws)).toEqual([1, 1, 1]);
    await applyProviderReports(
      statusWebhook(`sandbox:${ws}`, [{ id: 'w', status: 'failed', timestamp: String(Math.floor(Date.now() / 1000)), biz_opaque_callback_data: dispatchId, errors: [{ code: 131047 }] }]),
      env.table,
    );
    expect(await getDispatch(ws, dispatchId, env.table)).toMatchObject({ status: 'failed', failureCode: '131047' });
    expect((await itemsOf(dispatchId)).map(labelOf).sort()).toEqual(['DSP', 'EVT#ACCEPTED', 'EVT#REJECTED']);
    expect(await countsOf(ws)).toEqual([0, 0, 0]);
  });

  it('counts a dispatch once by its `sentAt` and writes no `reportedAt`: delivered still once, a late failure taken back, a dispatch sent by the release before the same', async () => {
    const storedAttributes = async (dispatchId: string) =>
      Object.keys((await env.table.db.send(new GetCommand({ TableName: env.table.tableName, Key: keys.dispatch(dispatchId) }))).Item ?? {});
    // What the sent move wrote before decision 109: `reportedAt` beside `sentAt` (and, before
    // decision 113, its rollups in its own transaction, naming no reports change).
    const sentByReleaseBefore = async (dispatchId: string) =>
      env.table.db.send(
        new UpdateCommand({ TableName: env.table.tableName, Key: keys.dispatch(dispatchId), UpdateExpression: 'SET reportedAt = sentAt REMOVE reportsChange', ConditionExpression: 'attribute_exists(sentAt)' }),
      );
    const report = (ws: string, dispatchId: string, status: string, extra: Record<string, unknown> = {}) =>
      applyProviderReports(statusWebhook(`sandbox:${ws}`, [{ id: 'w', status, timestamp: String(Math.floor(Date.now() / 1000)), biz_opaque_callback_data: dispatchId, ...extra }]), env.table);

    const delivered = await queuedDispatch(['promo']);
    await deliver(delivered.dispatchId, delivered.ws, scriptedProvider(accept).provider);
    const sent = await storedAttributes(delivered.dispatchId);
    expect(sent).toContain('sentAt');
    expect(sent).not.toContain('reportedAt');
    await report(delivered.ws, delivered.dispatchId, 'delivered');
    expect(await getDispatch(delivered.ws, delivered.dispatchId, env.table)).toMatchObject({ status: 'delivered' });
    expect(await storedAttributes(delivered.dispatchId)).not.toContain('reportedAt');
    expect((await rollupsOf(delivered.ws)).map((item) => item.dispatchCount)).toEqual([1, 1, 1]);

    const late = await queuedDispatch(['promo']);
    await deliver(late.dispatchId, late.ws, scriptedProvider(accept).provider);
    await report(late.ws, late.dispatchId, 'failed', { errors: [{ code: 131047 }] });
    expect(await getDispatch(late.ws, late.dispatchId, env.table)).toMatchObject({ status: 'failed', sentAt: expect.any(String) });
    expect(await countsOf(late.ws)).toEqual([0, 0, 0]);

    const before = await queuedDispatch(['promo']);
    await deliver(before.dispatchId, before.ws, scriptedProvider(accept).provider);
    await sentByReleaseBefore(before.dispatchId);
    await report(before.ws, before.dispatchId, 'delivered');
    expect(await getDispatch(before.ws, before.dispatchId, env.table)).toMatchObject({ status: 'delivered' });
    expect((await rollupsOf(before.ws)).map((item) => item.dispatchCount)).toEqual([1, 1, 1]);
  });

  it('never records a message sent before it was accepted, delivered before it was sent, or read before it was delivered, however WhatsApp’s whole seconds fall', async () => {
    const { ws, dispatchId } = await queuedDispatch(['promo'], new Date('2026-01-01T00:00:00.600Z'));
    // The answer lost (unknown): the reports say when, in whole seconds, the earliest before the send's own record.
    await deliver(dispatchId, ws, scriptedProvider(() => Promise.reject(new ProviderError('unknown', 'timeout', 'lost'))).provider, 1, new Date('2026-01-01T00:00:00.700Z'));
    const report = (status: 'sent' | 'delivered' | 'read') =>
      applyProviderReports(statusWebhook(`sandbox:${ws}`, [{ id: 'wamid.early', status, timestamp: '1767225600', biz_opaque_callback_data: dispatchId }]), env.table);
    for (const status of ['sent', 'delivered', 'read'] as const) expect(await report(status)).toMatchObject({ applied: 1 });

    const accepted = '2026-01-01T00:00:00.600Z';
    expect(await getDispatch(ws, dispatchId, env.table)).toMatchObject({ status: 'delivered', createdAt: accepted, sentAt: accepted, deliveredAt: accepted, readAt: accepted });
    const events = (await itemsOf(dispatchId)).filter((item) => item.entity === 'deliveryEvent');
    expect(events.map((event) => [event.status, event.occurredAt]).sort()).toEqual([
      ['ACCEPTED', accepted],
      ['DELIVERED', accepted],
    ]);
  });

  it('settles out-of-order callbacks forward only: delivered then sent stays delivered, at the sent’s time', async () => {
    const { ws, dispatchId } = await queuedDispatch(['promo'], BEFORE_REPORTS);
    await claimDispatch(dispatchId, new Date(), env.table);
    const report = (status: 'sent' | 'delivered', at: number) => applyProviderReports(statusWebhook(`sandbox:${ws}`, [{ id: 'wamid.1', status, timestamp: String(at), biz_opaque_callback_data: dispatchId }]), env.table);

    expect(await report('delivered', 1_767_225_660)).toMatchObject({ applied: 1 });
    // The sent moves no status, only `sentAt` back to its own time, once (decision 236).
    expect(await report('sent', 1_767_225_600)).toMatchObject({ applied: 1 });
    expect(await report('sent', 1_767_225_600)).toMatchObject({ applied: 0 });
    expect(await report('delivered', 1_767_225_660)).toMatchObject({ applied: 0 });

    expect(await getDispatch(ws, dispatchId, env.table)).toMatchObject({ status: 'delivered', deliveredAt: '2026-01-01T00:01:00.000Z' });
    expect((await itemsOf(dispatchId)).map(labelOf).sort()).toEqual(['DSP', 'EVT#ACCEPTED', 'EVT#DELIVERED', 'TAG#promo']);
    expect((await rollupsOf(ws)).every((item) => item.dispatchCount === 1)).toBe(true);
  });

  it('keeps the `sent` time a `sent` report gives when its `delivered` overtook it, as a `delivered` after its `read` moves `deliveredAt` back (decision 200)', async () => {
    const { ws, dispatchId } = await queuedDispatch(['promo'], BEFORE_REPORTS);
    await claimDispatch(dispatchId, new Date(), env.table);
    const report = (status: 'sent' | 'delivered', at: number) => applyProviderReports(statusWebhook(`sandbox:${ws}`, [{ id: 'wamid.1', status, timestamp: String(at), biz_opaque_callback_data: dispatchId }]), env.table);

    // Sent at 00:00:00, delivered at 00:01:00; Meta's POST of the delivered comes first.
    await report('delivered', 1_767_225_660);
    await report('sent', 1_767_225_600);

    // The message was sent a minute before it was delivered, not when it was delivered.
    expect(await getDispatch(ws, dispatchId, env.table)).toMatchObject({ status: 'delivered', sentAt: '2026-01-01T00:00:00.000Z', deliveredAt: '2026-01-01T00:01:00.000Z' });
  });

  it('keeps Meta’s pricing from the delivered and read statuses that carry it, not from a sent one that moves nothing, and a changed one replaces it', async () => {
    const { ws, dispatchId } = await queuedDispatch(['promo'], BEFORE_REPORTS);
    await deliver(dispatchId, ws, scriptedProvider(() => Promise.resolve({ providerMessageId: 'wamid.priced' })).provider, 1, BEFORE_REPORTS);
    const utility = { billable: true, category: 'utility', pricing_model: 'PMP', type: 'regular' };
    const report = (status: 'sent' | 'delivered' | 'read', at: number, pricing: Record<string, unknown> = utility) =>
      applyProviderReports(statusWebhook(`sandbox:${ws}`, [{ id: 'wamid.priced', status, timestamp: String(at), biz_opaque_callback_data: dispatchId, pricing }]), env.table);

    // Meta's `sent`, after our own answer moved the dispatch: one read of it, nothing written, not even
    // its pricing, which Meta repeats on the delivered or read report of a charged message (decision 121).
    const sent = await itemsRead(() => report('sent', 1_767_225_600));
    expect(sent.result).toMatchObject({ applied: 0, skipped: 0 });
    expect(sent.read).toEqual([`WANUM#sandbox:${ws}`, `DSP#${dispatchId}`]);
    expect(sent.written.filter((call) => call.includes(dispatchId))).toEqual([]);
    expect(await getDispatch(ws, dispatchId, env.table)).toMatchObject({ status: 'sent', pricing: null });
    expect(await report('delivered', 1_767_225_660)).toMatchObject({ applied: 1 });
    expect((await getDispatch(ws, dispatchId, env.table))!.pricing).toEqual({ billable: true, category: 'utility', pricingModel: 'PMP', type: 'regular' });
    expect(await report('read', 1_767_225_720)).toMatchObject({ applied: 1 });
    expect(await getDispatch(ws, dispatchId, env.table)).toMatchObject({ status: 'delivered', readAt: '2026-01-01T00:02:00.000Z', pricing: { billable: true, category: 'utility', pricingModel: 'PMP', type: 'regular' } });

    await report('read', 1_767_225_780, { ...utility, category: 'marketing' });
    expect(await getDispatch(ws, dispatchId, env.table)).toMatchObject({ readAt: '2026-01-01T00:02:00.000Z', pricing: { billable: true, category: 'marketing', pricingModel: 'PMP', type: 'regular' } });
    // Whether Meta charges it, now that `billable` is deprecated: a new `type` alone replaces it, and a pricing without either keeps null for them (decision 152).
    await report('read', 1_767_225_840, { category: 'utility', pricing_model: 'PMP', type: 'free_customer_service' });
    expect((await getDispatch(ws, dispatchId, env.table))!.pricing).toEqual({ billable: null, category: 'utility', pricingModel: 'PMP', type: 'free_customer_service' });
  });

  it('keeps the pricing of the latest status: an older one Meta delivers again later changes nothing, whether it moves the dispatch or not', async () => {
    const { ws, dispatchId } = await queuedDispatch(['promo'], BEFORE_REPORTS);
    await deliver(dispatchId, ws, scriptedProvider(() => Promise.resolve({ providerMessageId: 'wamid.late' })).provider, 1, BEFORE_REPORTS);
    const report = (status: 'delivered' | 'read', at: number, type: string) =>
      applyProviderReports(statusWebhook(`sandbox:${ws}`, [{ id: 'wamid.late', status, timestamp: String(at), biz_opaque_callback_data: dispatchId, pricing: { billable: type === 'regular', category: 'utility', pricing_model: 'PMP', type } }]), env.table);
    const free = { billable: false, category: 'utility', pricingModel: 'PMP', type: 'free_customer_service' };

    // The delivered POST got no 200 at first; the read, four minutes later, is applied first and moves the dispatch.
    expect(await report('read', 1_767_225_900, 'free_customer_service')).toMatchObject({ applied: 1 });
    // Meta delivers the older POST again, with the pricing it had then: the dispatch keeps the later
    // one (its delivered time alone goes back to the delivered's, decision 200).
    expect(await report('delivered', 1_767_225_660, 'regular')).toMatchObject({ applied: 1 });
    expect(await getDispatch(ws, dispatchId, env.table)).toMatchObject({ status: 'delivered', deliveredAt: '2026-01-01T00:01:00.000Z', pricing: free });
    // A status of the same second or later still replaces it.
    await report('read', 1_767_225_900, 'regular');
    expect((await getDispatch(ws, dispatchId, env.table))!.pricing).toMatchObject({ type: 'regular' });
  });

  it('reads a pricing stored before Meta’s `type` was kept with a null type', async () => {
    const { ws, dispatchId } = await queuedDispatch(['promo']);
    await env.table.db.send(
      new UpdateCommand({ TableName: env.table.tableName, Key: keys.dispatch(dispatchId), UpdateExpression: 'SET pricing = :pricing', ExpressionAttributeValues: { ':pricing': { billable: true, category: 'marketing', pricingModel: 'PMP' } } }),
    );
    expect((await getDispatch(ws, dispatchId, env.table))!.pricing).toEqual({ billable: true, category: 'marketing', pricingModel: 'PMP', type: null });
  });

  it('puts the wamid’s item before the sent move, which is the dispatch alone and names no wamid for the stream consumer (decisions 114, 196)', async () => {
    const { ws, dispatchId } = await queuedDispatch(['promo']);
    const wamid = `wamid.${randomUUID()}`;
    const commands: string[] = [];
    const name = `commands-${randomUUID()}`;
    env.table.db.middlewareStack.add(((next, context) => (args) => (commands.push(String(context.commandName)), next(args))) as BuildMiddleware<object, object> as never, { step: 'build', name });
    try {
      expect(await deliver(dispatchId, ws, scriptedProvider(() => Promise.resolve({ providerMessageId: wamid })).provider)).toBe('sent');
    } finally {
      env.table.db.middlewareStack.remove(name);
    }
    // The claim, the wamid's item, the sent move.
    expect(commands.filter((command) => command !== 'GetItemCommand')).toEqual(['UpdateItemCommand', 'PutItemCommand', 'UpdateItemCommand']);
    expect(await findProviderMessage(wamid, env.table)).toEqual({ kind: 'dispatch', workspaceId: ws, dispatchId });
    const item = (await env.table.db.send(new GetCommand({ TableName: env.table.tableName, Key: keys.dispatch(dispatchId) }))).Item;
    expect(item).toMatchObject({ providerMessageId: wamid });
    expect(item).not.toHaveProperty('wamidMade');
  });

  it('finds a status’s dispatch by the dispatch id Meta echoes, with one read and none by wamid; a status without it, by its wamid; a read receipt with one read', async () => {
    const deliveredBy = async (wamid: string, echoed: boolean) => {
      const { ws, dispatchId } = await queuedDispatch(['promo']);
      await deliver(dispatchId, ws, scriptedProvider(() => Promise.resolve({ providerMessageId: wamid })).provider);
      await runStreamConsumer(env.table);
      const status = { id: wamid, status: 'delivered', timestamp: String(Math.floor(Date.now() / 1000)), ...(echoed ? { biz_opaque_callback_data: dispatchId } : {}) };
      const { result, read } = await itemsRead(() => applyProviderReports(statusWebhook(`sandbox:${ws}`, [status]), env.table));
      expect(result).toMatchObject({ applied: 1 });
      expect(await getDispatch(ws, dispatchId, env.table)).toMatchObject({ status: 'delivered' });
      return { read, ws, dispatchId };
    };

    const echoed = await deliveredBy(`wamid.${randomUUID()}`, true);
    expect(echoed.read).toEqual([`WANUM#sandbox:${echoed.ws}`, `DSP#${echoed.dispatchId}`]);

    const wamid = `wamid.${randomUUID()}`;
    const bare = await deliveredBy(wamid, false);
    expect(bare.read).toEqual([`WANUM#sandbox:${bare.ws}`, `WAMID#${wamid}`, `DSP#${bare.dispatchId}`]);

    // Its `read`: `readAt` on the delivered dispatch, read once (a terminal status needs no fresh read to refuse a move),
    // the number's owner as this container read it a moment ago (decision 122).
    const read = await itemsRead(() =>
      applyProviderReports(statusWebhook(`sandbox:${echoed.ws}`, [{ id: 'w', status: 'read', timestamp: String(Math.floor(Date.now() / 1000)), biz_opaque_callback_data: echoed.dispatchId }]), env.table),
    );
    expect(read.result).toMatchObject({ applied: 1 });
    expect(read.read).toEqual([`DSP#${echoed.dispatchId}`]);
    expect(await getDispatch(echoed.ws, echoed.dispatchId, env.table)).toMatchObject({ status: 'delivered', readAt: expect.any(String) });
  });

  it('reads a number’s owner once a minute for its statuses, again for a status of another workspace’s dispatch, and afresh for a customer’s message (decision 122)', async () => {
    const number = `num-${randomUUID().slice(0, 8)}`;
    const [a, b] = [`ws-${randomUUID().slice(0, 8)}`, `ws-${randomUUID().slice(0, 8)}`];
    const bind = async (ws: string, whatsappPhoneNumberId: string) => saveWorkspace({ id: ws, name: ws, rupiahPerCredit: 150, settings: { whatsappPhoneNumberId } }, new Date(), env.table);
    await bind(a, number);
    await bind(b, `${number}-b`);
    const sentFrom = async (ws: string) => {
      await saveTemplate(ws, template, env.table);
      const { dispatchId } = await sendTemplateMessage(
        { workspaceId: ws, apiClient: { id: randomUUID(), name: 'k' }, to: '081234567890', templateId: TEMPLATE_ID, variables: { name: 'B', order: '1' }, tagIds: [], trackingTags: [], now: new Date() },
        { store: env.table, queue: env.queues },
      );
      await deliver(dispatchId, ws, scriptedProvider(accept).provider);
      return dispatchId;
    };
    const delivered = (dispatchId: string) =>
      itemsRead(() => applyProviderReports(statusWebhook(number, [{ id: `wamid.${dispatchId}`, status: 'delivered', timestamp: String(Math.floor(Date.now() / 1000)), biz_opaque_callback_data: dispatchId }]), env.table));

    const [first, second] = [await sentFrom(a), await sentFrom(a)];
    expect(await delivered(first)).toMatchObject({ result: { applied: 1 }, read: [`WANUM#${number}`, `DSP#${first}`] });
    expect(await delivered(second)).toMatchObject({ result: { applied: 1 }, read: [`DSP#${second}`] });

    // The number changes hands: b's dispatch is not skipped as another workspace's on what the container kept.
    await bind(a, `${number}-a`);
    await bind(b, number);
    const third = await sentFrom(b);
    // As sent before decision 178, not knowing its number: judged by the number's owner.
    await env.table.db.send(new UpdateCommand({ TableName: env.table.tableName, Key: keys.dispatch(third), UpdateExpression: 'REMOVE senderPhoneNumberId' }));
    expect(await delivered(third)).toMatchObject({ result: { applied: 1, skipped: 0 }, read: [`DSP#${third}`, `WANUM#${number}`] });
    expect(await getDispatch(b, third, env.table)).toMatchObject({ status: 'delivered' });

    // And back: a customer's message goes to the owner the table has now, whatever the container kept.
    await bind(b, `${number}-b`);
    await bind(a, number);
    const from = '6281234567001';
    const inbound = await itemsRead(() => applyProviderReports(inboundTextWebhook({ phoneNumberId: number, from, name: 'Sari', id: `wamid.${randomUUID()}`, text: 'Halo' }), env.table));
    expect(inbound).toMatchObject({ result: { inbound: 1 }, read: expect.arrayContaining([`WANUM#${number}`]) });
    expect((await listConversations(a, { phone: from, limit: 10 }, env.table)).items).toHaveLength(1);
    expect((await listConversations(b, { phone: from, limit: 10 }, env.table)).items).toEqual([]);
  });

  // docs/api.md#sandbox: a number ending 0429 is rate limited twice, then accepted. Deployed, each
  // retry may land on another consumer container, with its own memory: the count is the dispatch's.
  it('rate-limits a sandbox 0429 number twice, then sends it, whichever container each receive lands on', async () => {
    const ws = `ws-${randomUUID().slice(0, 8)}`;
    await saveWorkspace({ id: ws, name: ws, rupiahPerCredit: 150 }, new Date(), env.table);
    await saveTemplate(ws, template, env.table);
    const { dispatchId } = await sendTemplateMessage(sendCommand(ws, { to: '081234560429' }), { store: env.table, queue: env.queues });
    const outcomes: string[] = [];
    for (let receive = 1; receive <= 3; receive++) {
      clearSandboxCalls(); // a fresh container
      const sandbox = sandboxProvider({ callbackUrl: undefined, appSecret: () => Promise.resolve('test-app-secret'), reportDelayMs: 0 });
      outcomes.push(await deliver(dispatchId, ws, sandbox, receive));
    }
    expect(outcomes).toEqual(['retry', 'retry', 'sent']);
    expect(await getDispatch(ws, dispatchId, env.table)).toMatchObject({ status: 'sent', laterAnswers: 2 });
  });

  it('never calls the provider twice when the consumer is killed between the provider call and the status write: unknown, then settled by the sandbox’s report', async () => {
    const { ws, dispatchId } = await queuedDispatch(['promo']);
    const reports = await reportCatcher();
    const sandbox = sandboxProvider({ callbackUrl: reports.url, appSecret: () => Promise.resolve('test-app-secret'), reportDelayMs: 0 });
    // The process dies the moment the provider has the message: nothing it does after reaches the table.
    let killed = false;
    const dying: Provider = { send: (message) => sandbox.send(message).finally(() => (killed = true)), settle: () => sandbox.settle() };
    const deadStore: Store = { tableName: env.table.tableName, db: { send: (command: never) => (killed ? Promise.reject(new Error('consumer killed')) : env.table.db.send(command)) } as unknown as Store['db'] };
    const receive = async () => {
      const { Messages = [] } = await env.queues.sqs.send(new ReceiveMessageCommand({ QueueUrl: env.queues.queueUrl, WaitTimeSeconds: 1, MessageSystemAttributeNames: ['ApproximateReceiveCount'] }));
      expect(Messages.map((message) => JSON.parse(message.Body!) as unknown)).toEqual([{ dispatchId, workspaceId: ws }]);
      return { receiveCount: Number(Messages[0]!.Attributes!.ApproximateReceiveCount), receiptHandle: Messages[0]!.ReceiptHandle! };
    };

    const first = await receive();
    await expect(deliverDispatch({ dispatchId, workspaceId: ws, receiveCount: first.receiveCount, maxReceives: 5 }, { providerFor: () => dying, store: deadStore })).rejects.toThrow('consumer killed');
    expect(await getDispatch(ws, dispatchId, env.table)).toMatchObject({ status: 'processing' });

    // The message comes back once its visibility timeout is over (made to pass at once here).
    await env.queues.sqs.send(new ChangeMessageVisibilityCommand({ QueueUrl: env.queues.queueUrl, ReceiptHandle: first.receiptHandle, VisibilityTimeout: 0 }));
    const second = await receive();
    expect(second.receiveCount).toBe(2);
    expect(await deliverDispatch({ dispatchId, workspaceId: ws, receiveCount: second.receiveCount, maxReceives: 5 }, { providerFor: () => sandbox, store: env.table })).toBe('skipped');

    // With no report on the number since, nothing shows the provider never had it: after the bound,
    // the reconciler notes it due `unknown`, and a notice later settles what it cannot know, and
    // never sends it again.
    expect((await reconcile(new Date(Date.now() + REPORT_SILENCE_MS + 1_000), env.table, env.queues)).released).toBe(0);
    const dueAt = Date.now() + DEAD_ATTEMPT_UNKNOWN_MS + 1_000;
    expect((await reconcile(new Date(dueAt), env.table, env.queues)).noted).toBeGreaterThanOrEqual(1);
    const { status, attemptStartedAt } = (await getDispatch(ws, dispatchId, env.table))!;
    expect(status).toBe('processing');
    const { settledUnknown } = await reconcile(new Date(dueAt + UNKNOWN_NOTICE_MS), env.table, env.queues);
    expect(settledUnknown).toBeGreaterThanOrEqual(1);
    expect(await getDispatch(ws, dispatchId, env.table)).toMatchObject({ status: 'unknown', sentAt: null });

    // The provider's report, which it sent when it took the message, settles it.
    await sandbox.settle();
    expect(reports.bodies).toHaveLength(1);
    expect(await applyProviderReports(reports.bodies[0]!, env.table)).toMatchObject({ applied: 1 });
    expect(await getDispatch(ws, dispatchId, env.table)).toMatchObject({ status: 'delivered', sentAt: expect.any(String), deliveredAt: expect.any(String) });
    expect(sandboxCallCount(dispatchId)).toBe(1);
    // The reconciler's note of the attempt (decision 163) stays beside the dispatch until its TTL.
    expect((await itemsOf(dispatchId)).map(labelOf).sort()).toEqual([`DEAD#${attemptStartedAt}`, 'DSP', 'EVT#ACCEPTED', 'EVT#DELIVERED', 'TAG#promo']);
    expect((await rollupsOf(ws)).map((item) => item.dispatchCount)).toEqual([1, 1, 1]);
    await reports.close();
  });

  it('leaves nothing claimed when the consumer dies before the provider has the message: the message comes back and is delivered, once', async () => {
    const { ws, dispatchId } = await queuedDispatch(['promo']);
    const provider = scriptedProvider(accept);
    clearWorkspaceCache(); // a fresh container
    // The process dies while it reads the workspace (a cold container; the table does not answer):
    // from then on nothing it would do reaches the table or the provider.
    let killed = false;
    const dyingStore: Store = {
      tableName: env.table.tableName,
      db: {
        send: (command: { input: { Key?: { sk?: string } } }) => {
          if (command.input.Key?.sk === 'WS') killed = true;
          return killed ? Promise.reject(new Error('consumer killed')) : env.table.db.send(command as never);
        },
      } as unknown as Store['db'],
    };
    await expect(deliverDispatch(attempt(dispatchId, ws), { providerFor: () => provider.provider, store: dyingStore })).rejects.toThrow('consumer killed');
    expect(provider.calls).toEqual([]);
    expect(await getDispatch(ws, dispatchId, env.table)).toMatchObject({ status: 'queued' });

    // Long after: the reconciler finds no dead attempt to settle as unknown, and the message's return delivers it.
    await reconcile(new Date(Date.now() + QUEUED_GRACE_MS + STALE_ATTEMPT_MS), env.table, env.queues);
    expect(await getDispatch(ws, dispatchId, env.table)).toMatchObject({ status: 'queued' });
    expect(await deliver(dispatchId, ws, provider.provider, 2)).toBe('sent');
    expect(provider.calls).toEqual([dispatchId]);
  });

  it('sends again, once, a dispatch whose consumer died with its claim in flight, once the number’s reports show the provider never took it', async () => {
    const { ws, dispatchId } = await queuedDispatch(['promo']);
    // The claim reached the table; the consumer was killed before it heard back, so it never called.
    await claimDispatch(dispatchId, new Date(Date.now() - 1_000), env.table, `sandbox:${ws}`);
    const provider = scriptedProvider(accept);

    // A dispatch the number sent after that claim is reported on: the reports are flowing.
    const later = await sendAfter(ws);
    expect(await deliver(later, ws, provider.provider)).toBe('sent');
    const report = statusWebhook(`sandbox:${ws}`, [{ id: 'wamid.later', status: 'delivered', timestamp: String(Math.floor(Date.now() / 1000)), biz_opaque_callback_data: later }]);
    expect(await applyProviderReports(report, env.table)).toMatchObject({ applied: 1 });

    // A minute on, the attempt is dead but a late report could still come: nothing yet.
    const message = { dispatchId, workspaceId: ws };
    await env.queues.receiveAll(); // both sends' own queue messages, consumed
    await reconcile(new Date(Date.now() + 2 * STALE_ATTEMPT_MS), env.table, env.queues);
    expect(await getDispatch(ws, dispatchId, env.table)).toMatchObject({ status: 'processing' });
    expect(await env.queues.receiveAll()).not.toContainEqual(message);
    // After the silence: no report came for it, though one came for what was sent after it. Its
    // claim is given back, and it is queued again once nothing settled it for RELEASED_GRACE_MS:
    // its verdict, carried on the queue through a table outage, may be on its way (decision 161).
    const judgedAt = Date.now() + REPORT_SILENCE_MS + 1_000;
    expect((await reconcile(new Date(judgedAt), env.table, env.queues)).released).toBeGreaterThanOrEqual(1);
    expect(await getDispatch(ws, dispatchId, env.table)).toMatchObject({ status: 'processing' });
    expect(await env.queues.receiveAll()).not.toContainEqual(message);
    await reconcile(new Date(judgedAt + RELEASED_GRACE_MS + 1_000), env.table, env.queues);
    expect(await env.queues.receiveAll()).toContainEqual(message);
    expect(await deliver(dispatchId, ws, provider.provider, 2)).toBe('sent');
    expect(provider.calls).toEqual([later, dispatchId]);
    expect(await getDispatch(ws, dispatchId, env.table)).toMatchObject({ status: 'sent' });
    expect((await itemsOf(dispatchId)).map(labelOf).sort()).toEqual(['DSP', 'EVT#ACCEPTED', 'TAG#promo']);
    // Sent once: a later run leaves it alone.
    await reconcile(new Date(Date.now() + DEAD_ATTEMPT_UNKNOWN_MS + 1_000), env.table, env.queues);
    expect(await getDispatch(ws, dispatchId, env.table)).toMatchObject({ status: 'sent' });
    expect(await env.queues.receiveAll()).not.toContainEqual(message);
  });

  it('does not send again a dead claim that names no number (taken before decision 181), whatever its workspace’s number reports: it is settled unknown', async () => {
    const { ws, dispatchId } = await queuedDispatch(['promo']);
    await claimDispatch(dispatchId, new Date(Date.now() - 1_000), env.table);
    const later = await sendAfter(ws);
    expect(await deliver(later, ws, scriptedProvider(accept).provider)).toBe('sent');
    const report = statusWebhook(`sandbox:${ws}`, [{ id: 'wamid.later', status: 'delivered', timestamp: String(Math.floor(Date.now() / 1000)), biz_opaque_callback_data: later }]);
    expect(await applyProviderReports(report, env.table)).toMatchObject({ applied: 1 });
    await env.queues.receiveAll();

    for (const at of [REPORT_SILENCE_MS + 1_000, REPORT_SILENCE_MS + RELEASED_GRACE_MS + 2_000]) await reconcile(new Date(Date.now() + at), env.table, env.queues);
    expect(await getDispatch(ws, dispatchId, env.table)).toMatchObject({ status: 'processing', attemptStartedAt: expect.any(String) });
    expect(await env.queues.receiveAll()).not.toContainEqual({ dispatchId, workspaceId: ws });
    const after = Date.now() + DEAD_ATTEMPT_UNKNOWN_MS + 1_000;
    await reconcile(new Date(after), env.table, env.queues);
    await reconcile(new Date(after + UNKNOWN_NOTICE_MS + 1_000), env.table, env.queues);
    expect(await getDispatch(ws, dispatchId, env.table)).toMatchObject({ status: 'unknown' });
  });

  it('does not send again a dead attempt of a template WhatsApp is holding (template pacing): the release’s report settles it, an hour late', async () => {
    const { ws, dispatchId } = await queuedDispatch(['promo']);
    await claimDispatch(dispatchId, new Date(Date.now() - 1_000), env.table, `sandbox:${ws}`);
    // WhatsApp answers another send of the template “held for quality assessment”: no report comes for it yet.
    const held = await sendAfter(ws);
    const pacing = scriptedProvider(acceptHeld);
    expect(await deliver(held, ws, pacing.provider)).toBe('sent');
    // Another template's message on the number is reported: the number's reports are flowing.
    const other = await sendOfAnotherTemplate(ws);
    const provider = scriptedProvider(accept);
    expect(await deliver(other, ws, provider.provider)).toBe('sent');
    expect(await reportOn(ws, other, 'delivered')).toMatchObject({ applied: 1 });
    const message = { dispatchId, workspaceId: ws };
    await env.queues.receiveAll();

    // Past the silence that shows an unpaced message was never taken, and past the wait for an `unknown`: left alone.
    const { attemptStartedAt } = (await getDispatch(ws, dispatchId, env.table))!;
    for (const after of [REPORT_SILENCE_MS, DEAD_ATTEMPT_UNKNOWN_MS, DEAD_ATTEMPT_UNKNOWN_MS + UNKNOWN_NOTICE_MS, PACED_REPORT_SILENCE_MS - 60_000]) {
      await reconcile(new Date(Date.now() + after + 1_000), env.table, env.queues);
      expect(await getDispatch(ws, dispatchId, env.table)).toMatchObject({ status: 'processing', attemptStartedAt });
    }
    expect(await env.queues.receiveAll()).not.toContainEqual(message);
    // WhatsApp releases the held messages; the dead attempt's report names its dispatch.
    expect(await reportOn(ws, dispatchId, 'sent')).toMatchObject({ applied: 1 });
    expect(await getDispatch(ws, dispatchId, env.table)).toMatchObject({ status: 'sent' });
    await reconcile(new Date(Date.now() + PACED_REPORT_SILENCE_MS + 1_000), env.table, env.queues);
    expect(await env.queues.receiveAll()).not.toContainEqual(message);
    expect([pacing.calls, provider.calls]).toEqual([[held], [other]]);
  });

  it('does not send again a message WhatsApp accepted as held whose `sent` write did not land: the pacing mark comes first', async () => {
    const { ws, dispatchId } = await queuedDispatch(['promo']);
    let called = false;
    const held = scriptedProvider(() => ((called = true), acceptHeld()));
    // The dispatch item refuses every write once WhatsApp has the message (an item the table cannot take).
    const refusing = emulateRefusedWrites(env.table.db, { on: (pk) => pk === keys.dispatch(dispatchId).pk, name: 'ValidationException', refusing: () => called });
    try {
      expect(await deliverQueuedDispatch(attempt(dispatchId, ws), { providerFor: () => held.provider, store: env.table })).toMatchObject({ outcome: 'retry' });
    } finally {
      refusing.remove();
    }
    const other = await sendOfAnotherTemplate(ws);
    expect(await deliver(other, ws, scriptedProvider(accept).provider)).toBe('sent');
    expect(await reportOn(ws, other, 'delivered')).toMatchObject({ applied: 1 });
    await env.queues.receiveAll();

    // The number's reports passed the attempt, but WhatsApp may hold the message for an hour.
    expect(await reconcile(new Date(Date.now() + REPORT_SILENCE_MS + 1_000), env.table, env.queues)).toMatchObject({ released: 0 });
    expect(await env.queues.receiveAll()).not.toContainEqual({ dispatchId, workspaceId: ws });
    // WhatsApp releases it: its report records the send the write could not.
    expect(await reportOn(ws, dispatchId, 'sent')).toMatchObject({ applied: 1 });
    expect(await getDispatch(ws, dispatchId, env.table)).toMatchObject({ status: 'sent' });
    expect(held.calls).toEqual([dispatchId]);
  });

  // Found by the skeptic review of decision 219: the claim names the stack's default number, so the
  // reconciler judges a dead claim on it by that number's reports once a workspace owns it; the
  // pacing mark went only on a workspace's own number.
  it('does not send again a message WhatsApp accepted as held from the default number, bound to another workspace, whose `sent` write did not land', async () => {
    const admin = (...argv: string[]) => runAdmin(argv, { out: () => {}, err: () => {}, env: {}, target: async () => ({ ...env.table, description: 'test table' }) });
    const whatsappWorkspace = async (number?: string) => {
      const ws = `ws-${randomUUID().slice(0, 8)}`;
      expect(await admin('workspace', 'create', '--id', ws, '--name', 'Acme', '--rupiah-per-credit', '150', '--provider', 'whatsapp', ...(number ? ['--whatsapp-phone-number-id', number] : []))).toBe(0);
      await saveTemplate(ws, template, env.table);
      return ws;
    };
    const send = async (ws: string, to: string) => (await sendTemplateMessage(sendCommand(ws, { to }), { store: env.table, queue: env.queues })).dispatchId;
    const fromDefault = (defaultNumber: string, answer: () => Promise<{ providerMessageId: string; held?: boolean }>) => {
      const scripted = scriptedProvider(answer);
      return { ...scripted, provider: { ...scripted.provider, ready: () => Promise.resolve({ defaultPhoneNumberId: defaultNumber }) } };
    };
    const defaultNumber = `1055${Date.now()}`.slice(0, 15);
    // The webhook-items-skipped runbook: the operator binds the default number to a workspace W;
    // V has no number of its own, and sends from the default one.
    const w = await whatsappWorkspace(defaultNumber);
    const v = await whatsappWorkspace();
    const dispatchId = await send(v, '081234567890');

    let called = false;
    const held = fromDefault(defaultNumber, () => ((called = true), acceptHeld()));
    const refusing = emulateRefusedWrites(env.table.db, { on: (pk) => pk === keys.dispatch(dispatchId).pk, name: 'ValidationException', refusing: () => called });
    try {
      expect(await deliverQueuedDispatch(attempt(dispatchId, v), { providerFor: () => held.provider, store: env.table })).toMatchObject({ outcome: 'retry' });
    } finally {
      refusing.remove();
    }
    expect(await getDispatch(v, dispatchId, env.table)).toMatchObject({ status: 'processing', senderPhoneNumberId: defaultNumber });

    // W's own send from the number, delivered and reported after V's attempt.
    const other = await send(w, '081234567891');
    expect(await deliverQueuedDispatch(attempt(other, w), { providerFor: () => scriptedProvider(accept).provider, store: env.table })).toEqual({ outcome: 'sent' });
    const delivered = statusWebhook(defaultNumber, [{ id: `wamid.${randomUUID()}`, status: 'delivered', timestamp: String(Math.floor(Date.now() / 1000)), biz_opaque_callback_data: other }]);
    expect(await applyProviderReports(delivered, env.table)).toMatchObject({ applied: 1 });
    await env.queues.receiveAll();

    // The number's reports passed the attempt, but WhatsApp may hold V's message for an hour.
    expect(await reconcile(new Date(Date.now() + REPORT_SILENCE_MS + 1_000), env.table, env.queues)).toMatchObject({ released: 0 });
    expect(await env.queues.receiveAll()).not.toContainEqual({ dispatchId, workspaceId: v });
    expect(held.calls).toEqual([dispatchId]);
  });

  it('does not let the pacing mark take the verdict’s time: a mark the table never answers is given up halfway to the deadline, and the send is recorded', async () => {
    const { ws, dispatchId } = await queuedDispatch(['promo']);
    const held = scriptedProvider(acceptHeld);
    const hungMarks: Store = {
      tableName: env.table.tableName,
      db: { send: (command: { input: { Key?: { sk?: string } } }) => (command.input.Key?.sk?.startsWith('PACED#') ? new Promise(() => undefined) : env.table.db.send(command as never)) } as unknown as Store['db'],
    };
    // The verdict's own deadline, not a tight one: the claim, the reads and the verdict's write must
    // fit in the half the mark leaves, and DynamoDB Local on a busy machine takes its time (decision 166).
    expect(await deliverQueuedDispatch({ ...attempt(dispatchId, ws), writeDeadline: Date.now() + VERDICT_WRITE_DEADLINE_MS }, { providerFor: () => held.provider, store: hungMarks, queue: env.queues })).toEqual({ outcome: 'sent' });
    expect(await getDispatch(ws, dispatchId, env.table)).toMatchObject({ status: 'sent' });
  });

  it('sends again, once, a dead attempt of a paced template that no report names once WhatsApp’s holds are over', async () => {
    const { ws, dispatchId } = await queuedDispatch(['promo']);
    await claimDispatch(dispatchId, new Date(Date.now() - 1_000), env.table, `sandbox:${ws}`);
    const held = await sendAfter(ws);
    expect(await deliver(held, ws, scriptedProvider(acceptHeld).provider)).toBe('sent');
    const other = await sendOfAnotherTemplate(ws);
    const provider = scriptedProvider(accept);
    expect(await deliver(other, ws, provider.provider)).toBe('sent');
    expect(await reportOn(ws, other, 'delivered')).toMatchObject({ applied: 1 });
    await env.queues.receiveAll();

    const judgedAt = Date.now() + PACED_REPORT_SILENCE_MS + 1_000;
    await reconcile(new Date(judgedAt), env.table, env.queues);
    const released = (await getDispatch(ws, dispatchId, env.table))!;
    expect([released.status, released.attemptStartedAt]).toEqual(['processing', undefined]);
    await reconcile(new Date(judgedAt + RELEASED_GRACE_MS + 1_000), env.table, env.queues);
    expect(await env.queues.receiveAll()).toContainEqual({ dispatchId, workspaceId: ws });
    expect(await deliver(dispatchId, ws, provider.provider, 2)).toBe('sent');
    expect(provider.calls).toEqual([other, dispatchId]);
  });

  it('shows an operator why a dead attempt waits, and until when (`npm run admin -- dispatch show`)', async () => {
    const { ws, dispatchId } = await queuedDispatch(['promo']);
    await claimDispatch(dispatchId, new Date(Date.now() - 1_000), env.table, `sandbox:${ws}`);
    const show = async (at: Date, ...options: string[]) => {
      const out: string[] = [];
      const err: string[] = [];
      const status = await runAdmin(['dispatch', 'show', ...options], { out: (text) => out.push(text), err: (text) => err.push(text), env: {}, target: async () => ({ ...env.table, description: 'test table' }), now: () => at });
      return { status, stdout: out.join('\n'), stderr: err, next: () => (JSON.parse(out.join('\n')) as { next: unknown }).next };
    };
    const started = (await getDispatch(ws, dispatchId, env.table))!.attemptStartedAt!;
    const after = (ms: number) => new Date(Date.parse(started) + ms).toISOString();
    const dead = new Date(Date.now() + 2 * STALE_ATTEMPT_MS);

    const live = await show(new Date(), '--id', dispatchId, '--json');
    expect([live.status, JSON.parse(live.stdout)]).toEqual([0, expect.objectContaining({ dispatchId, workspaceId: ws, status: 'processing', attemptStartedAt: started, next: { kind: 'attempt', deadAfter: after(STALE_ATTEMPT_MS) } })]);
    // Its id in upper case, as the API reads it (a client may print it so): the same dispatch.
    const upper = await show(new Date(), '--id', dispatchId.toUpperCase(), '--json');
    expect([upper.status, upper.stdout]).toEqual([0, live.stdout]);
    const unpaced = { kind: 'dead', paced: false, judgedAt: after(REPORT_SILENCE_MS), evidenceNeeded: after(-10_000), reportedThrough: null, unknownAt: after(DEAD_ATTEMPT_UNKNOWN_MS + UNKNOWN_NOTICE_MS) };
    expect((await show(dead, '--id', dispatchId, '--json')).next()).toEqual(unpaced);
    // WhatsApp holds a send of the template on the number: the attempt's wait is two hours.
    expect(await deliver(await sendAfter(ws), ws, scriptedProvider(acceptHeld).provider)).toBe('sent');
    const paced = { ...unpaced, paced: true, judgedAt: after(PACED_REPORT_SILENCE_MS), unknownAt: after(PACED_REPORT_SILENCE_MS + UNKNOWN_NOTICE_MS) };
    expect((await show(dead, '--id', dispatchId, '--json')).next()).toEqual(paced);
    const next = (await show(dead, '--id', dispatchId)).stdout.split('\n').at(-1)!;
    expect(next).toMatch(/^next +a dead/);
    expect(next.replace(/^next +/, '')).toBe(
      `a dead attempt (its consumer died with the claim): a report for it may come until ${after(PACED_REPORT_SILENCE_MS)} (WhatsApp was holding its template on this number: template pacing); then released, and queued again if nothing settles it for 4 minutes, if the number's reports have reached ${after(-10_000)} (they reach nothing yet), else settled unknown at ${after(PACED_REPORT_SILENCE_MS + UNKNOWN_NOTICE_MS)} (later while the dispatch queue's backlog may still hold its release)`,
    );
    // A run notes it due `unknown` later than it could have: it is settled a notice after that run.
    const late = Date.parse(started) + PACED_REPORT_SILENCE_MS + 10 * 60_000;
    await reconcile(new Date(late), env.table, env.queues);
    expect((await show(dead, '--id', dispatchId, '--json')).next()).toEqual({ ...paced, unknownAt: new Date(late + UNKNOWN_NOTICE_MS).toISOString() });

    // WhatsApp releases it: the report settles it, and the reconciler has nothing left to do.
    expect(await reportOn(ws, dispatchId, 'sent')).toMatchObject({ applied: 1 });
    expect((await show(dead, '--id', dispatchId, '--json')).next()).toEqual({ kind: 'settled' });
    expect((await show(dead, '--id', dispatchId)).stdout.split('\n').at(-1)).toMatch(/^next +nothing: sent is settled$/);

    const missing = await show(new Date(), '--id', 'no-such-dispatch');
    expect([missing.status, missing.stderr]).toEqual([1, ['Target: test table', 'admin: No dispatch no-such-dispatch']]);
  });

  // A claim on the stack's default number names it (decision 219), or none when taken before: its
  // reports are not kept while no workspace owns it, so the reconciler never releases it, and only
  // settles it `unknown`. The command promised a release (the docs review).
  it.each([
    ['names it', '106540352242922'],
    ['names none (taken before decision 219)', undefined],
  ])('tells an operator that a dead attempt on the default number is never released, only settled unknown: a claim that %s', async (_, defaultNumber) => {
    const ws = `ws-${randomUUID().slice(0, 8)}`;
    await saveWorkspace({ id: ws, name: ws, rupiahPerCredit: 150, settings: { provider: 'whatsapp' } }, new Date(), env.table);
    await saveTemplate(ws, template, env.table);
    const { dispatchId } = await sendTemplateMessage(
      { workspaceId: ws, apiClient: { id: randomUUID(), name: 'k' }, to: '081234567890', templateId: TEMPLATE_ID, variables: { name: 'Sari', order: 'A-1' }, tagIds: [], trackingTags: [], now: new Date() },
      { store: env.table, queue: env.queues },
    );
    await claimDispatch(dispatchId, new Date(), env.table, defaultNumber);
    const started = Date.parse((await getDispatch(ws, dispatchId, env.table))!.attemptStartedAt!);
    const out: string[] = [];
    expect(await runAdmin(['dispatch', 'show', '--id', dispatchId], { out: (text) => out.push(text), err: () => undefined, env: {}, target: async () => ({ ...env.table, description: 'test table' }), now: () => new Date(started + 6 * 60_000) })).toBe(0);
    const next = out.join('\n').split('\n').at(-1)!;
    expect(next).toMatch(/never released: it names no number .*; settled unknown at /);
    expect(next).not.toMatch(/then released/);

    // As the reconciler does.
    await reconcile(new Date(started + DEAD_ATTEMPT_UNKNOWN_MS + 60_000), env.table, env.queues);
    await reconcile(new Date(started + DEAD_ATTEMPT_UNKNOWN_MS + 6 * 60_000), env.table, env.queues);
    expect((await getDispatch(ws, dispatchId, env.table))!.status).toBe('unknown');
  });

  // With no run to note it yet (the table away past its wait), the view gave a moment already past.
  it('never tells an operator that a dead attempt no run has noted is settled `unknown` at a moment already past', async () => {
    const { ws, dispatchId } = await queuedDispatch(['promo']);
    await claimDispatch(dispatchId, new Date(Date.now() - 1_000), env.table, `sandbox:${ws}`);
    const started = Date.parse((await getDispatch(ws, dispatchId, env.table))!.attemptStartedAt!);
    const back = new Date(started + 30 * 60_000);
    const out: string[] = [];
    expect(await runAdmin(['dispatch', 'show', '--id', dispatchId, '--json'], { out: (text) => out.push(text), err: () => undefined, env: {}, target: async () => ({ ...env.table, description: 'test table' }), now: () => back })).toBe(0);
    const { unknownAt } = (JSON.parse(out.join('\n')) as { next: { unknownAt: string } }).next;
    expect(unknownAt).toBe(new Date(back.getTime() + UNKNOWN_NOTICE_MS).toISOString());
    // And so it goes: noted by the run at that moment, settled by the first run at the moment shown.
    await reconcile(back, env.table, env.queues);
    await reconcile(new Date(Date.parse(unknownAt) - 1_000), env.table, env.queues);
    expect((await getDispatch(ws, dispatchId, env.table))!.status).toBe('processing');
    await reconcile(new Date(unknownAt), env.table, env.queues);
    expect((await getDispatch(ws, dispatchId, env.table))!.status).toBe('unknown');
  });

  it('loads the provider’s credentials before it claims: credentials that cannot be read leave the dispatch unclaimed for the retry', async () => {
    const { ws, dispatchId } = await queuedDispatch([]);
    const provider = scriptedProvider(accept);
    const unready: Provider = { ...provider.provider, ready: () => Promise.reject(new ProviderError('transient', 'credentials_unavailable', 'Secrets Manager did not answer')) };
    expect(await deliver(dispatchId, ws, unready, 1)).toBe('retry');
    expect(await getDispatch(ws, dispatchId, env.table)).toMatchObject({ status: 'queued' });
    expect((await itemsOf(dispatchId)).find((item) => item.sk === 'DSP')).not.toHaveProperty('attemptStartedAt');
    // Still not ready on the last receive: a fault of ours, not a "later" of the provider's. Still
    // unclaimed, nothing counted, and the message goes to the DLQ (decision 205).
    expect(await deliver(dispatchId, ws, unready, 5)).toBe('retry');
    expect(await getDispatch(ws, dispatchId, env.table)).toMatchObject({ status: 'queued', failureCode: null });
    expect((await itemsOf(dispatchId)).find((item) => item.sk === 'DSP')).not.toHaveProperty('laterAnswers');
    expect(await deliver(dispatchId, ws, provider.provider, 1)).toBe('sent');
    expect(provider.calls).toEqual([dispatchId]);
  });

  it('retries a transient refusal with a new attempt, and fails the dispatch on the provider’s fifth “later”', async () => {
    const retried = await queuedDispatch([]);
    const flaky = scriptedProvider(refuse('transient', '130429'), accept);
    expect(await deliver(retried.dispatchId, retried.ws, flaky.provider, 1)).toBe('retry');
    expect(await getDispatch(retried.ws, retried.dispatchId, env.table)).toMatchObject({ status: 'processing' });
    expect(await deliver(retried.dispatchId, retried.ws, flaky.provider, 2)).toBe('sent');
    expect(flaky.calls).toHaveLength(2);

    const exhausted = await queuedDispatch([]);
    const down = scriptedProvider(refuse('transient', '131000'));
    for (const receive of [1, 2, 3, 4]) expect(await deliver(exhausted.dispatchId, exhausted.ws, down.provider, receive)).toBe('retry');
    expect(await deliver(exhausted.dispatchId, exhausted.ws, down.provider, 5)).toBe('failed');
    expect(down.calls).toHaveLength(5);
    expect(await getDispatch(exhausted.ws, exhausted.dispatchId, env.table)).toMatchObject({ status: 'failed', failureCode: 'retries_exhausted:131000' });
  });

  // The 200-send chaos run of 2026-11-27: a number rate limited twice, its message's other receives
  // spent on consumer kills and the table being away, was failed on its second "later".
  it('fails no message for receives that never reached the provider: the last one leaves it, released, for the reconciler, which sends it once', async () => {
    const { ws, dispatchId } = await queuedDispatch([]);
    const message = { dispatchId, workspaceId: ws };
    const limited = scriptedProvider(refuse('transient', '130429'), refuse('transient', '130429'), accept);
    // Receives 1 to 3 ended before the claim: they left nothing on the dispatch.
    expect(await deliver(dispatchId, ws, limited.provider, 4)).toBe('retry');
    expect(await deliver(dispatchId, ws, limited.provider, 5)).toBe('held');
    const released = (await getDispatch(ws, dispatchId, env.table))!;
    expect(released).toMatchObject({ status: 'processing', failureCode: null });
    expect(released.attemptStartedAt).toBeUndefined();

    await env.queues.receiveAll(); // the consumer let its message go
    await reconcile(new Date(Date.parse(released.updatedAt) + RELEASED_GRACE_MS + 1_000), env.table, env.queues);
    expect(await env.queues.receiveAll()).toContainEqual(message);
    expect(await deliver(dispatchId, ws, limited.provider, 1)).toBe('sent');
    expect(limited.calls).toEqual([dispatchId, dispatchId, dispatchId]);
    expect(await getDispatch(ws, dispatchId, env.table)).toMatchObject({ status: 'sent', failureCode: null });
  });

  it('counts the provider’s “later” answers across queue messages: the fifth fails the dispatch on any receive', async () => {
    const { ws, dispatchId } = await queuedDispatch([]);
    const down = scriptedProvider(refuse('transient', '131000'));
    expect(await deliver(dispatchId, ws, down.provider, 4)).toBe('retry');
    expect(await deliver(dispatchId, ws, down.provider, 5)).toBe('held');
    // Queued again by the reconciler: a new message, its receives counted from 1.
    for (const receive of [1, 2]) expect(await deliver(dispatchId, ws, down.provider, receive)).toBe('retry');
    expect(await deliver(dispatchId, ws, down.provider, 3)).toBe('failed');
    expect(down.calls).toHaveLength(5);
    expect(await getDispatch(ws, dispatchId, env.table)).toMatchObject({ status: 'failed', failureCode: 'retries_exhausted:131000' });
  });

  // The 20,000-send chaos run of 2026-11-27: DynamoDB Local was killed as WhatsApp refused a
  // message; the refusal's write failed, the claim stayed, no report ever comes for a refused
  // message, and the reconciler took the silent attempt for one the provider never had (decision
  // 63) and asked the provider again.
  it.each([
    ['refused for good', refuse('permanent', '131026'), { status: 'failed', failureCode: '131026' }],
    ['accepted', accept, { status: 'sent', failureCode: null }],
    ['asked for later', refuse('transient', '130429'), { status: 'processing', laterAnswers: 1 }],
  ] as const)('records the verdict of a provider that %s though the table missed its first writes: one provider call, nothing left for the reconciler', async (_, answer, recorded) => {
    const { ws, dispatchId } = await queuedDispatch([]);
    const provider = scriptedProvider(answer);
    let unanswered = 2;
    const away = () => Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:8000'), { code: 'ECONNREFUSED', $metadata: {} });
    // The table goes away the moment the provider has answered, for two writes.
    const flaky: Store = { tableName: env.table.tableName, db: { send: (command: never) => (provider.calls.length && unanswered-- > 0 ? Promise.reject(away()) : env.table.db.send(command)) } as unknown as Store['db'] };
    await deliverDispatch(attempt(dispatchId, ws), { providerFor: () => provider.provider, store: flaky });
    expect(unanswered).toBeLessThan(0);
    const dispatch = (await getDispatch(ws, dispatchId, env.table))!;
    expect(dispatch).toMatchObject(recorded);
    // No claim left standing: nothing for the reconciler to take for a silent attempt.
    expect(dispatch.attemptStartedAt).toBeUndefined();
    expect(provider.calls).toEqual([dispatchId]);
  });

  it('logs what the provider said of a refusal beyond its code (WhatsApp’s details, subcode and trace id for Meta’s support), and keeps it out of the dispatch', async () => {
    const { ws, dispatchId } = await queuedDispatch([]);
    const detail = { type: 'OAuthException', subcode: 2494010, details: 'Parameter name is missing or empty', fbtraceId: 'AyUmjG0DS0cEXZZwn8esb2q' };
    const refusal = () => Promise.reject(new ProviderError('permanent', '100', '(#100) Invalid parameter: Parameter name is missing or empty', { detail }));
    const logs = captureLogLines();
    try {
      expect(await deliver(dispatchId, ws, scriptedProvider(refusal).provider)).toBe('failed');
    } finally {
      logs.restore();
    }
    expect(logs.lines.filter((line) => line.message === 'Provider did not accept')).toEqual([
      expect.objectContaining({ dispatchId, kind: 'permanent', code: '100', providerMessage: '(#100) Invalid parameter: Parameter name is missing or empty', ...detail }),
    ]);
    expect(await getDispatch(ws, dispatchId, env.table)).toMatchObject({ status: 'failed', failureCode: '100' });
  });

  it('fails a permanently refused dispatch with the provider’s code and a REJECTED event, and counts nothing for reports', async () => {
    const { ws, dispatchId } = await queuedDispatch(['promo']);
    expect(await deliver(dispatchId, ws, scriptedProvider(refuse('permanent', '131026')).provider)).toBe('failed');
    expect(await getDispatch(ws, dispatchId, env.table)).toMatchObject({ status: 'failed', failureCode: '131026' });
    const event = (await itemsOf(dispatchId)).find((item) => labelOf(item) === 'EVT#REJECTED');
    expect(event).toMatchObject({ status: 'REJECTED', failureCode: '131026', phone: '+6281234567890' });
    expect(await rollupsOf(ws)).toEqual([]);
  });
});

/**
 * Decision 63 sends a dead attempt again once the number's reports have passed it and five minutes
 * brought none for it: WhatsApp reports `sent` for every message it takes, within seconds. An
 * attempt whose consumer lived to see no answer (our timeout, a gateway's 502 or 504) is judged by
 * the same evidence (decision 227): WhatsApp may have refused it late, as Meta's documented 503
 * `133004` ("Server temporarily unavailable"), and never report on it.
 */
describe('an `unknown` answer the number’s reports judge (decision 227)', () => {
  let graph: GraphStub;
  beforeAll(async () => (graph = await startGraphStub()));
  afterAll(() => graph.close());
  const cloud = (): Provider => whatsAppCloudProvider({ baseUrl: graph.baseUrl, timeoutMs: 1_000, credentials: () => Promise.resolve({ accessToken: 't', appSecret: 's', verifyToken: 'v', phoneNumberId: '1111' }) });
  /** WhatsApp is slow, then refuses: its 503 comes after our timeout. */
  const refusedLate = () => ({ status: 503, delayMs: 1_500, body: { error: { message: '(#133004) Server temporarily unavailable', type: 'OAuthException', code: 133004, error_data: { messaging_product: 'whatsapp', details: 'Server is temporarily unavailable.' }, fbtrace_id: 'AbCdEf123' } } });
  /** The proxy in front of the Graph API lost its upstream: its own page, no Graph error. */
  const gatewayTimeout = () => ({ status: 504, body: '<html><body><h1>504 Gateway Time-out</h1></body></html>' });
  const accepted = (wamid: string) => () => ({ status: 200, body: { messaging_product: 'whatsapp', contacts: [{ input: '6281234567891', wa_id: '6281234567891' }], messages: [{ id: wamid, message_status: 'accepted' }] } });
  /** How often WhatsApp was asked to send `dispatchId` (the callback data every send carries). */
  const askedFor = (dispatchId: string) => graph.received.filter((request) => (request.body as { biz_opaque_callback_data?: string } | undefined)?.biz_opaque_callback_data === dispatchId).length;
  /** Another message of the number, taken and reported delivered: the reports are flowing past the attempt. */
  async function reportedAfter(ws: string): Promise<void> {
    const later = await sendAfter(ws);
    graph.answer = accepted(`wamid.${randomUUID()}`);
    expect(await deliver(later, ws, cloud())).toBe('sent');
    expect(await reportOn(ws, later, 'delivered')).toMatchObject({ applied: 1 });
  }

  it('sends again, once, a timeout on a send WhatsApp refused late, once the number’s reports show it never took it, counting the answer', async () => {
    const { ws, dispatchId } = await queuedDispatch(['promo']);
    graph.answer = refusedLate;
    expect(await deliver(dispatchId, ws, cloud())).toBe('unknown');
    const unanswered = (await getDispatch(ws, dispatchId, env.table))!;
    expect(unanswered).toMatchObject({ status: 'unknown', attemptStartedAt: expect.any(String), senderPhoneNumberId: `sandbox:${ws}` });
    await reportedAfter(ws);
    const message = { dispatchId, workspaceId: ws };
    await env.queues.receiveAll();

    // A minute on, a late report could still come: nothing yet.
    await reconcile(new Date(Date.now() + 2 * STALE_ATTEMPT_MS), env.table, env.queues);
    expect(await getDispatch(ws, dispatchId, env.table)).toMatchObject({ status: 'unknown' });
    // After the silence its attempt is given back, the answer counted, and the dispatch queued again once nothing settled it.
    const judgedAt = Date.now() + REPORT_SILENCE_MS + 1_000;
    expect((await reconcile(new Date(judgedAt), env.table, env.queues)).released).toBeGreaterThanOrEqual(1);
    const released = (await getDispatch(ws, dispatchId, env.table))!;
    // It stays `unknown`, its GET body as it was: no status event (decision 227; status never moves backwards).
    expect({ status: released.status, attemptStartedAt: released.attemptStartedAt ?? null, laterAnswers: released.laterAnswers, sequence: released.sequence }).toEqual({ status: 'unknown', attemptStartedAt: null, laterAnswers: 1, sequence: unanswered.sequence });
    expect(await env.queues.receiveAll()).not.toContainEqual(message);
    await reconcile(new Date(judgedAt + RELEASED_GRACE_MS + 1_000), env.table, env.queues);
    expect(await env.queues.receiveAll()).toContainEqual(message);

    graph.answer = accepted(`wamid.${randomUUID()}`);
    expect(await deliver(dispatchId, ws, cloud(), 1)).toBe('sent');
    expect(askedFor(dispatchId)).toBe(2);
    expect((await itemsOf(dispatchId)).map(labelOf).sort()).toEqual(['DSP', 'EVT#ACCEPTED', 'TAG#promo']);
    // Sent: a later run leaves it alone.
    await reconcile(new Date(Date.now() + DEAD_ATTEMPT_UNKNOWN_MS + RELEASED_GRACE_MS + 3_000), env.table, env.queues);
    expect(await env.queues.receiveAll()).not.toContainEqual(message);
    expect(await getDispatch(ws, dispatchId, env.table)).toMatchObject({ status: 'sent' });
  });

  it('never moves the GET body’s status backwards across the retry: `unknown` until the retry’s verdict, and no status event for the give-back', async () => {
    const { ws, dispatchId } = await queuedDispatch(['promo']);
    const seen: { status: string; sequence: number }[] = [];
    const look = async () => {
      const { status, sequence } = (await getDispatch(ws, dispatchId, env.table))!;
      seen.push({ status, sequence });
    };
    graph.answer = refusedLate;
    expect(await deliver(dispatchId, ws, cloud())).toBe('unknown');
    await look();
    await reportedAfter(ws);
    await env.queues.receiveAll();
    const judgedAt = Date.now() + REPORT_SILENCE_MS + 1_000;
    expect((await reconcile(new Date(judgedAt), env.table, env.queues)).released).toBeGreaterThanOrEqual(1);
    await look();
    await reconcile(new Date(judgedAt + RELEASED_GRACE_MS + 1_000), env.table, env.queues);
    expect(await env.queues.receiveAll()).toContainEqual({ dispatchId, workspaceId: ws });
    await look();
    graph.answer = accepted(`wamid.${randomUUID()}`);
    expect(await deliver(dispatchId, ws, cloud(), 1)).toBe('sent');
    await look();
    expect(seen.map(({ status }) => status)).toEqual(['unknown', 'unknown', 'unknown', 'sent']);
    // The give-back, the queuing and the claim change nothing of the GET body: no `message.status.updated` event (its `sequence` stays); the `sent` is one.
    expect(seen.map(({ sequence }) => sequence - seen[0]!.sequence)).toEqual([0, 0, 0, 1]);
  });

  it('keeps `unknown` through a retry answered `unknown` again, then “later”, and a report settles it', async () => {
    const { ws, dispatchId } = await queuedDispatch(['promo']);
    const message = { dispatchId, workspaceId: ws };
    const read = async () => (await getDispatch(ws, dispatchId, env.table))!;
    graph.answer = gatewayTimeout;
    expect(await deliver(dispatchId, ws, cloud())).toBe('unknown');
    const { sequence } = await read();
    await reportedAfter(ws);
    await env.queues.receiveAll();
    const judgedAt = Date.now() + REPORT_SILENCE_MS + 1_000;
    expect((await reconcile(new Date(judgedAt), env.table, env.queues)).released).toBeGreaterThanOrEqual(1);
    // The retry's answer is lost again: `unknown`, holding the retry's attempt, the GET body as it was.
    graph.answer = gatewayTimeout;
    expect(await deliver(dispatchId, ws, cloud(), 1)).toBe('unknown');
    const again = await read();
    expect({ status: again.status, sequence: again.sequence, laterAnswers: again.laterAnswers, attempts: again.attempts }).toEqual({ status: 'unknown', sequence, laterAnswers: 1, attempts: 2 });
    expect(again.attemptStartedAt).toEqual(expect.any(String));
    // Judged again by the reports (a report after the retry's attempt), given back again, and its retry answered “later”: given back, `unknown`.
    await reportedAfter(ws);
    const rejudgedAt = Date.parse(again.attemptStartedAt!) + REPORT_SILENCE_MS + 1_000;
    expect((await reconcile(new Date(rejudgedAt), env.table, env.queues)).released).toBeGreaterThanOrEqual(1);
    graph.answer = () => ({ status: 503, body: { error: { message: '(#133004) Server temporarily unavailable', type: 'OAuthException', code: 133004, fbtrace_id: 'AbCdEf123' } } });
    expect(await deliver(dispatchId, ws, cloud(), 1)).toBe('retry');
    const later = await read();
    expect({ status: later.status, sequence: later.sequence, laterAnswers: later.laterAnswers, attemptStartedAt: later.attemptStartedAt ?? null }).toEqual({ status: 'unknown', sequence, laterAnswers: 3, attemptStartedAt: null });
    await env.queues.receiveAll();
    await reconcile(new Date(rejudgedAt + RELEASED_GRACE_MS + 60_000), env.table, env.queues);
    expect(await env.queues.receiveAll()).toContainEqual(message);
    // WhatsApp's report of the first send comes at last: it settles it, forward.
    expect(await reportOn(ws, dispatchId, 'delivered')).toMatchObject({ applied: 1 });
    expect(await read()).toMatchObject({ status: 'delivered', sequence: sequence + 1 });
    expect(await deliver(dispatchId, ws, cloud(), 1)).toBe('skipped');
    expect(askedFor(dispatchId)).toBe(3);
  });

  /**
   * An `unknown` given back and sent again; while the retry is asked for, WhatsApp's late report of
   * the first send comes (it took that one after all: decision 227's residual risk), then the retry
   * gets `answer`. Returns its queue message's outcome and the WARN lines logged meanwhile.
   */
  async function retriedWhileReported(report: 'sent' | 'delivered', answer: () => Promise<{ providerMessageId: string }>) {
    const { ws, dispatchId } = await queuedDispatch(['promo']);
    graph.answer = gatewayTimeout;
    expect(await deliver(dispatchId, ws, cloud())).toBe('unknown');
    await reportedAfter(ws);
    await env.queues.receiveAll();
    const judgedAt = Date.now() + REPORT_SILENCE_MS + 1_000;
    expect((await reconcile(new Date(judgedAt), env.table, env.queues)).released).toBeGreaterThanOrEqual(1);
    const { provider } = scriptedProvider(async () => {
      expect(await reportOn(ws, dispatchId, report)).toMatchObject({ applied: 1 });
      return answer();
    });
    const logs = captureLogLines();
    try {
      const outcome = await deliver(dispatchId, ws, provider, 1);
      return { ws, dispatchId, outcome, warnings: logs.at('WARN') };
    } finally {
      logs.restore();
    }
  }

  it('never fails a message WhatsApp reported sent while its retry was in flight, whatever the retry is answered', async () => {
    const { ws, dispatchId, outcome, warnings } = await retriedWhileReported('sent', refuse('permanent', '131026'));
    // Its queue message is done with (not `retry`): the lost verdict is not asked again (decision 237).
    expect(outcome).not.toBe('retry');
    expect(warnings).toEqual([expect.objectContaining({ message: 'Skipped a verdict: a report moved the dispatch on while its attempt was in flight', dispatchId, verdict: 'failed', failureCode: '131026', ofClaim: 2, status: 'sent' })]);
    // The customer has the first send, and WhatsApp said so: the status never moves from `sent` to `failed` on the retry's refusal.
    const after = (await getDispatch(ws, dispatchId, env.table))!;
    expect({ status: after.status, failureCode: after.failureCode ?? null }).toEqual({ status: 'sent', failureCode: null });
    expect((await itemsOf(dispatchId)).map(labelOf)).not.toContain('EVT#REJECTED');
    // The first send's later reports still apply.
    expect(await reportOn(ws, dispatchId, 'delivered')).toMatchObject({ applied: 1 });
    expect(await getDispatch(ws, dispatchId, env.table)).toMatchObject({ status: 'delivered' });
  });

  it('never moves back a message WhatsApp reported delivered while its retry was in flight, when the retry is taken', async () => {
    const { ws, dispatchId, outcome, warnings } = await retriedWhileReported('delivered', accept);
    expect(outcome).not.toBe('retry');
    expect(warnings).toEqual([]);
    expect(await getDispatch(ws, dispatchId, env.table)).toMatchObject({ status: 'delivered' });
    expect((await itemsOf(dispatchId)).map(labelOf).sort()).toEqual(['DSP', 'EVT#ACCEPTED', 'EVT#DELIVERED', 'TAG#promo']);
  });

  it('judges a retry whose consumer died with its claim as the `unknown` it still is: given back again, never `processing`', async () => {
    const { ws, dispatchId } = await queuedDispatch(['promo']);
    graph.answer = gatewayTimeout;
    expect(await deliver(dispatchId, ws, cloud())).toBe('unknown');
    const { sequence } = (await getDispatch(ws, dispatchId, env.table))!;
    await reportedAfter(ws);
    const judgedAt = Date.now() + REPORT_SILENCE_MS + 1_000;
    expect((await reconcile(new Date(judgedAt), env.table, env.queues)).released).toBeGreaterThanOrEqual(1);
    // The retry's consumer claims it and dies before it calls.
    const claim = await claimDispatch(dispatchId, new Date(), env.table, `sandbox:${ws}`);
    expect(claim).toMatchObject({ claimed: true, dispatch: { status: 'unknown', sequence, attempts: 2 } });
    const retried = (await getDispatch(ws, dispatchId, env.table))!;
    expect(retried.attemptStartedAt).toEqual(expect.any(String));
    await reportedAfter(ws);
    expect((await reconcile(new Date(Date.parse(retried.attemptStartedAt!) + REPORT_SILENCE_MS + 1_000), env.table, env.queues)).released).toBeGreaterThanOrEqual(1);
    const again = (await getDispatch(ws, dispatchId, env.table))!;
    expect({ status: again.status, sequence: again.sequence, laterAnswers: again.laterAnswers, attemptStartedAt: again.attemptStartedAt ?? null }).toEqual({ status: 'unknown', sequence, laterAnswers: 2, attemptStartedAt: null });
    expect(askedFor(dispatchId)).toBe(1);
  });

  it('never sends again a timeout WhatsApp took: its report settles it, and the reconciler has nothing left to judge', async () => {
    const { ws, dispatchId } = await queuedDispatch(['promo']);
    graph.answer = gatewayTimeout;
    expect(await deliver(dispatchId, ws, cloud())).toBe('unknown');
    await reportedAfter(ws);
    expect(await reportOn(ws, dispatchId, 'delivered')).toMatchObject({ applied: 1 });
    await env.queues.receiveAll();
    for (const at of [REPORT_SILENCE_MS + 1_000, REPORT_SILENCE_MS + RELEASED_GRACE_MS + 2_000]) await reconcile(new Date(Date.now() + at), env.table, env.queues);
    expect(await env.queues.receiveAll()).not.toContainEqual({ dispatchId, workspaceId: ws });
    const settled = (await getDispatch(ws, dispatchId, env.table))!;
    expect({ status: settled.status, attemptStartedAt: settled.attemptStartedAt ?? null }).toEqual({ status: 'delivered', attemptStartedAt: null });
    expect(askedFor(dispatchId)).toBe(1);
  });

  it('leaves `unknown` for good, never sent again, a gateway’s 504 with no reports on its number, nor claimed; a report still settles it', async () => {
    const { ws, dispatchId } = await queuedDispatch(['promo']);
    graph.answer = gatewayTimeout;
    expect(await deliver(dispatchId, ws, cloud())).toBe('unknown');
    await env.queues.receiveAll();
    expect((await reconcile(new Date(Date.now() + REPORT_SILENCE_MS + 1_000), env.table, env.queues)).released).toBe(0);
    const started = (await getDispatch(ws, dispatchId, env.table))!.attemptStartedAt!;
    expect(started).toEqual(expect.any(String));
    // An operator sees its clock, as a dead attempt's (`npm run admin -- dispatch show`).
    const out: string[] = [];
    expect(await runAdmin(['dispatch', 'show', '--id', dispatchId, '--json'], { out: (text) => out.push(text), err: () => undefined, env: {}, target: async () => ({ ...env.table, description: 'test table' }), now: () => new Date() })).toBe(0);
    const after = (ms: number) => new Date(Date.parse(started) + ms).toISOString();
    expect((JSON.parse(out.join('\n')) as { next: unknown }).next).toEqual({ kind: 'unanswered', paced: false, judgedAt: after(REPORT_SILENCE_MS), evidenceNeeded: after(-10_000), reportedThrough: null, settledAt: after(DEAD_ATTEMPT_UNKNOWN_MS) });
    expect((await reconcile(new Date(Date.now() + DEAD_ATTEMPT_UNKNOWN_MS + 1_000), env.table, env.queues)).settledUnknown).toBeGreaterThanOrEqual(1);
    const settled = (await getDispatch(ws, dispatchId, env.table))!;
    expect({ status: settled.status, attemptStartedAt: settled.attemptStartedAt ?? null }).toEqual({ status: 'unknown', attemptStartedAt: null });
    // Reports that come now judge nothing: it is out of the reconciler's reach.
    await reportedAfter(ws);
    await env.queues.receiveAll();
    await reconcile(new Date(Date.now() + DEAD_ATTEMPT_UNKNOWN_MS + RELEASED_GRACE_MS + 2_000), env.table, env.queues);
    expect(await env.queues.receiveAll()).not.toContainEqual({ dispatchId, workspaceId: ws });
    // A queue message for it (a copy from before) finds nothing to claim: never sent again.
    expect(await deliver(dispatchId, ws, cloud(), 1)).toBe('skipped');
    expect(askedFor(dispatchId)).toBe(1);
    expect(await reportOn(ws, dispatchId, 'sent')).toMatchObject({ applied: 1 });
    expect(await getDispatch(ws, dispatchId, env.table)).toMatchObject({ status: 'sent' });
  });

  it('leaves `unknown` for good a timeout on the provider’s fifth answer: the retry budget is spent (decision 132)', async () => {
    const { ws, dispatchId } = await queuedDispatch(['promo']);
    await env.table.db.send(new UpdateCommand({ TableName: env.table.tableName, Key: keys.dispatch(dispatchId), UpdateExpression: 'SET laterAnswers = :four', ExpressionAttributeValues: { ':four': 4 } }));
    graph.answer = refusedLate;
    expect(await deliver(dispatchId, ws, cloud())).toBe('unknown');
    const settled = (await getDispatch(ws, dispatchId, env.table))!;
    expect({ status: settled.status, attemptStartedAt: settled.attemptStartedAt ?? null }).toEqual({ status: 'unknown', attemptStartedAt: null });
    await reportedAfter(ws);
    await env.queues.receiveAll();
    for (const at of [REPORT_SILENCE_MS + 1_000, REPORT_SILENCE_MS + RELEASED_GRACE_MS + 2_000]) await reconcile(new Date(Date.now() + at), env.table, env.queues);
    expect(await env.queues.receiveAll()).not.toContainEqual({ dispatchId, workspaceId: ws });
    expect(await getDispatch(ws, dispatchId, env.table)).toMatchObject({ status: 'unknown' });
  });

  // An outage's answers spend their own budget (decision 231): a timeout as WhatsApp comes back from
  // one still has the five of decision 132 before it, and is judged by the reports.
  it('leaves a timeout after ten minutes of WhatsApp down to the reports, as without the outage', async () => {
    const { ws, dispatchId } = await queuedDispatch(['promo']);
    await env.table.db.send(new UpdateCommand({ TableName: env.table.tableName, Key: keys.dispatch(dispatchId), UpdateExpression: 'SET laterAnswers = :six, outageAnswers = :six', ExpressionAttributeValues: { ':six': 6 } }));
    graph.answer = refusedLate;
    expect(await deliver(dispatchId, ws, cloud())).toBe('unknown');
    expect((await getDispatch(ws, dispatchId, env.table))!.attemptStartedAt).toEqual(expect.any(String));
  });
});

describe('a burst in one workspace, and DynamoDB’s transaction conflicts', () => {
  // A burst's first reports no longer write shared items (the rollups are the report
  // projection's, decision 113): each status transaction writes its own dispatch and wamid, and
  // the projection counts each send once however many come at once.
  it('records every send of a burst, and the report projection counts each once', async () => {
    const BURST = 16;
    const ws = `ws-${randomUUID().slice(0, 8)}`;
    await saveWorkspace({ id: ws, name: ws, rupiahPerCredit: 150 }, new Date(), env.table);
    await saveTemplate(ws, template, env.table);
    const dispatchIds: string[] = [];
    for (let i = 0; i < BURST; i++) {
      const sent = await sendTemplateMessage(
        { workspaceId: ws, apiClient: { id: 'k', name: 'k' }, to: `0812345${String(i).padStart(5, '0')}`, templateId: TEMPLATE_ID, variables: { name: 'B', order: String(i) }, tagIds: [], trackingTags: ['promo'], now: new Date() },
        { store: env.table, queue: env.queues },
      );
      dispatchIds.push(sent.dispatchId);
    }
    const { provider, calls } = scriptedProvider(accept);
    const outcomes = await Promise.all(dispatchIds.map((dispatchId) => deliver(dispatchId, ws, provider)));
    expect(outcomes).toEqual(dispatchIds.map(() => 'sent'));
    expect(calls.sort()).toEqual([...dispatchIds].sort());
    expect(await countsOf(ws)).toEqual([BURST, BURST, BURST]);
  });
  it('does not take a send whose status write kept conflicting as recorded: nothing half-written, no second provider call, and the provider’s report records it', async () => {
    const { ws, dispatchId } = await queuedDispatch(['promo']);
    let called = false;
    const { provider, calls } = scriptedProvider(() => {
      called = true;
      return accept();
    });
    // No pauses between retries: from the provider's call on, the dispatch stays held by a transaction that never ends.
    jest.spyOn(Math, 'random').mockReturnValue(0);
    const conflicts = emulateTransactionConflicts(env.table.db, { heldForever: (pk) => called && pk === `DSP#${dispatchId}` });
    try {
      await expect(deliver(dispatchId, ws, provider)).rejects.toMatchObject({ code: 'service_unavailable', cause: new Error(`Change of dispatch ${dispatchId} kept conflicting with other transactions`) });
      expect(conflicts.stats.refusedWrites).toBe(CONFLICT_RETRIES + 1);
      jest.restoreAllMocks();
      // The message's next receive finds its claim held the same way: it comes back again, and the provider is not called.
      await expect(deliverQueuedDispatch(attempt(dispatchId, ws, 2), { providerFor: () => provider, store: env.table })).resolves.toMatchObject({ outcome: 'retry' });
    } finally {
      conflicts.remove();
      jest.restoreAllMocks();
    }
    expect(calls).toEqual([dispatchId]);
    expect(await getDispatch(ws, dispatchId, env.table)).toMatchObject({ status: 'processing', sentAt: null });
    expect(await rollupsOf(ws)).toEqual([]);

    // The conflicts over, WhatsApp's `sent` report (it echoes the dispatch id) records the send, once.
    await applyProviderReports(statusWebhook(`sandbox:${ws}`, [{ id: `wamid.${randomUUID()}`, status: 'sent', timestamp: String(Math.floor(Date.now() / 1000)), biz_opaque_callback_data: dispatchId }]), env.table);
    expect(await getDispatch(ws, dispatchId, env.table)).toMatchObject({ status: 'sent' });
    expect((await rollupsOf(ws)).map((item) => item.dispatchCount)).toEqual([1, 1, 1]);
  });
});

/**
 * `Date.now()` moving on by `stepMs` at each reading, for code that asks again until a deadline:
 * the deadline comes after a few tries instead of in real time.
 */
const fastClock = (stepMs: number) => {
  const start = Date.now();
  let readings = 0;
  const now = jest.spyOn(Date, 'now').mockImplementation(() => start + ++readings * stepMs);
  return { readings: () => readings, restore: () => now.mockRestore() };
};
const connectFails = () => Object.assign(new Error('connect ETIMEDOUT'), { name: 'TimeoutError', code: 'ETIMEDOUT', $metadata: {} });

/**
 * The table as a function sees it when the claim reaches it and the claim's answer is lost (the
 * SDK's request timeout), and from then on every call fails to connect; a clock running ahead from
 * the lost answer brings the claim's deadline (CLAIM_OUTCOME_DEADLINE_MS) after a few tries.
 */
function claimAnswerLost() {
  let claimTries = 0;
  let clock: ReturnType<typeof fastClock> | undefined;
  const store: Store = {
    tableName: env.table.tableName,
    db: {
      send: async (command: { input: { UpdateExpression?: string } }) => {
        const claim = command.input.UpdateExpression?.includes('attemptId = :attempt') === true;
        if (claim) claimTries++;
        if (claimTries === 0) return env.table.db.send(command as never);
        if (claim && claimTries === 1) {
          await env.table.db.send(command as never);
          clock = fastClock(3_000);
          throw Object.assign(new Error('Request timed out'), { name: 'TimeoutError', $metadata: {} });
        }
        throw connectFails();
      },
    } as unknown as Store['db'],
  };
  return { store, claimTries: () => claimTries, restoreClock: () => clock?.restore() };
}


describe('the deliver consumer when DynamoDB throttles', () => {
  // A throttled write wrote nothing and decided nothing. Taken as a refusal ("someone moved the
  // dispatch first"), a send the provider accepted was settled `sent` with its dispatch still
  // `processing` and its queue message deleted; WhatsApp's reports, throttled the same way, were
  // answered as duplicates, and the reconciler could then take the silent attempt for one the
  // provider never had (decision 63) and queue it again: a second send. The status move is one
  // UpdateItem since decision 114 (it was a transaction, refused the same way, decision 93).
  it.each(['ThrottlingException', 'ProvisionedThroughputExceededException'] as const)(
    'does not take a send whose status write was refused with %s as recorded: the message and the report come back, one provider call',
    async (name) => {
      const { ws, dispatchId, refused, result: report } = await whileStatusWritesRefused(name, async ({ ws, dispatchId, provider, refusedSoFar }) => {
        const report = statusWebhook(`sandbox:${ws}`, [{ id: `wamid.${randomUUID()}`, status: 'sent', timestamp: String(Math.floor(Date.now() / 1000)), biz_opaque_callback_data: dispatchId }]);
        // The verdict's write asks again until the attempt's deadline (a second here), then the message comes back.
        const refusedBefore = refusedSoFar();
        await expect(deliverQueuedDispatch({ ...attempt(dispatchId, ws), writeDeadline: Date.now() + 1_000 }, { providerFor: () => provider, store: env.table })).resolves.toMatchObject({ outcome: 'retry', cause: { name } });
        expect(refusedSoFar() - refusedBefore).toBeGreaterThan(2);
        await expect(applyProviderReports(report, env.table)).rejects.toMatchObject({ name });
        // The message's next receive finds its claim refused the same way: it comes back again, and the provider is not called.
        // The claim asks again until CLAIM_OUTCOME_DEADLINE_MS (10 s) has passed: a clock running ahead brings it after a few tries.
        const clock = fastClock(3_000);
        try {
          await expect(deliverQueuedDispatch(attempt(dispatchId, ws, 2), { providerFor: () => provider, store: env.table })).resolves.toMatchObject({ outcome: 'retry', cause: { name } });
        } finally {
          clock.restore();
        }
        // It did ask again: each try reads the clock.
        expect(clock.readings()).toBeGreaterThan(2);
        return report;
      });
      // Each of the three was refused (and the first attempt's release of its claim too).
      expect(refused).toBeGreaterThanOrEqual(3);

      // The table takes writes again: WhatsApp's retried report records the send, once.
      await applyProviderReports(report, env.table);
      expect(await getDispatch(ws, dispatchId, env.table)).toMatchObject({ status: 'sent' });
      expect((await rollupsOf(ws)).map((item) => item.dispatchCount)).toEqual([1, 1, 1]);
    },
  );
});

describe('the table away while WhatsApp has the message, and back before WhatsApp retries its report (decision 161)', () => {
  // An outage fails the verdict's write and WhatsApp's report of the same message together. Once
  // the table is back, the reports of new sends arrive at once while Meta retries the held-back one
  // on its own back-off; read as decision 63's evidence, they had the reconciler send again a
  // message WhatsApp had (or may have had: a timeout's `unknown`).
  /**
   * Takes every message of workspace `ws` on the queue as the deliver consumer takes it, WhatsApp
   * answering through `provider` (the reconciler queues other tests' dispatches too: left alone).
   */
  const consumeQueue = async (ws: string, provider: Provider) => {
    for (const message of await queuedFor(ws)) await deliverQueuedDispatch({ ...attempt(message.dispatchId, message.workspaceId), ...message, writeDeadline: Date.now() + 1_000 }, { providerFor: () => provider, store: env.table, queue: env.queues });
  };
  /**
   * What the queue holds for workspace `ws`. Other tests' messages are taken and left alone: the
   * reconciler queues every test's dispatches, and a carried release's receive queues its dispatch
   * again seconds later (decision 164).
   */
  const queuedFor = async (ws: string) => ((await env.queues.receiveAll()) as DispatchMessage[]).filter((message) => message.workspaceId === ws);
  /** A queued dispatch whose provider answered `answer` ("later", a refused token) as the table went away: its release is carried on the queue. */
  const releaseCarriedThroughOutage = async (answer: Parameters<typeof scriptedProvider>[0]) => {
    const { ws, dispatchId } = await queuedDispatch(['promo']);
    await env.queues.receiveAll();
    let called = false;
    const refusing = scriptedProvider(() => ((called = true), answer()));
    const outage = emulateRefusedWrites(env.table.db, { on: () => true, name: 'ThrottlingException', refusing: () => called });
    try {
      expect(await deliverQueuedDispatch({ ...attempt(dispatchId, ws), writeDeadline: Date.now() + 1_000 }, { providerFor: () => refusing.provider, store: env.table, queue: env.queues })).toEqual({ outcome: 'carried' });
    } finally {
      outage.remove();
    }
    return { ws, dispatchId };
  };
  const verdicts = [
    ['accepted it', accept, { status: 'sent', sentAt: expect.any(String) }],
    ['did not answer in time', refuse('unknown', 'timeout'), { status: 'unknown', sentAt: null }],
    ['refused it', refuse('permanent', '131026'), { status: 'failed', failureCode: '131026', sentAt: null }],
  ] as const;
  it.each(verdicts)('records the verdict once the table is back when WhatsApp %s, and never asks WhatsApp again, even when the reconciler runs first', async (_, answer, recorded) => {
    const { ws, dispatchId } = await queuedDispatch(['promo']);
    const later = await sendAfter(ws);
    await env.queues.receiveAll(); // both sends' messages: this test hands them to the consumer itself
    let called = false;
    const whatsapp = scriptedProvider(() => ((called = true), answer()));

    // The table stops answering writes as WhatsApp answers: the verdict's write asks until its deadline, in vain.
    const outage = emulateRefusedWrites(env.table.db, { on: () => true, name: 'ThrottlingException', refusing: () => called });
    let inFlight: DispatchMessage[];
    try {
      await deliverQueuedDispatch({ ...attempt(dispatchId, ws), writeDeadline: Date.now() + 1_000 }, { providerFor: () => whatsapp.provider, store: env.table, queue: env.queues });
      // Another receive takes what the queue now holds, and asks the table until it answers.
      inFlight = await queuedFor(ws);
    } finally {
      outage.remove();
    }
    // The table is back. The number's next message is sent and reported at once; WhatsApp's report
    // of the first is still held back by Meta's retries.
    expect(await deliver(later, ws, scriptedProvider(accept).provider)).toBe('sent');
    expect(await reportOn(ws, later, 'delivered')).toMatchObject({ applied: 1 });

    // The reconciler runs before that receive has written anything, and the consumer takes what the
    // queue has. Then the receive in flight writes what it holds, and the reconciler and the
    // consumer go on past every wait the reconciler has.
    await reconcile(new Date(Date.now() + REPORT_SILENCE_MS + 1_000), env.table, env.queues);
    await consumeQueue(ws, whatsapp.provider);
    for (const message of inFlight) await deliverQueuedDispatch({ ...attempt(message.dispatchId, message.workspaceId), ...message }, { providerFor: () => whatsapp.provider, store: env.table, queue: env.queues });
    for (const after of [REPORT_SILENCE_MS + RELEASED_GRACE_MS, DEAD_ATTEMPT_UNKNOWN_MS + RELEASED_GRACE_MS]) {
      await reconcile(new Date(Date.now() + after + 1_000), env.table, env.queues);
      await consumeQueue(ws, whatsapp.provider);
    }
    expect(whatsapp.calls).toEqual([dispatchId]);
    expect(await getDispatch(ws, dispatchId, env.table)).toMatchObject(recorded);
    // Day, tag and day-tag counts: the later send, and this one once if it was sent.
    expect(await countsOf(ws)).toEqual(recorded.status === 'sent' ? [2, 1, 1] : [1, 0, 0]);
  });

  // A release lost the same way left the claim standing; with no reports on the number (a refused
  // token sends nothing) the reconciler settled `unknown` a message WhatsApp never had.
  it.each([
    ['asked for later', refuse('transient', '130429')],
    ['refused the access token', refuse('credentials', '190')],
  ] as const)('gives the claim back once the table is back when WhatsApp %s, and then sends the message, once', async (_, answer) => {
    const { ws, dispatchId } = await queuedDispatch(['promo']);
    await env.queues.receiveAll();
    let called = false;
    const refusing = scriptedProvider(() => ((called = true), answer()));
    const outage = emulateRefusedWrites(env.table.db, { on: () => true, name: 'ThrottlingException', refusing: () => called });
    let first: Awaited<ReturnType<typeof deliverQueuedDispatch>>;
    try {
      first = await deliverQueuedDispatch({ ...attempt(dispatchId, ws), writeDeadline: Date.now() + 1_000 }, { providerFor: () => refusing.provider, store: env.table, queue: env.queues });
    } finally {
      outage.remove();
    }
    // A record that failed comes back, as SQS hands it out again.
    if (first.outcome === 'retry') await enqueueDispatch({ dispatchId, workspaceId: ws }, env.queues);

    // The table is back (and the token fixed): the consumer takes what the queue holds. The carried
    // release's receive gives the claim back and queues the dispatch again after its back-off (2 s
    // on a first receive): WhatsApp is asked on that message's receive, not before (decision 164).
    const whatsapp = scriptedProvider(accept);
    await consumeQueue(ws, whatsapp.provider);
    expect(whatsapp.calls).toEqual([]);
    const released = (await getDispatch(ws, dispatchId, env.table))!;
    expect([released.status, released.attemptStartedAt]).toEqual(['processing', undefined]);
    await new Promise((resolve) => setTimeout(resolve, 2_100));
    await consumeQueue(ws, whatsapp.provider);
    expect(whatsapp.calls).toEqual([dispatchId]);
    // The reconciler, run past every wait it has, finds nothing to do.
    for (const after of [REPORT_SILENCE_MS, DEAD_ATTEMPT_UNKNOWN_MS, DEAD_ATTEMPT_UNKNOWN_MS + RELEASED_GRACE_MS]) {
      await reconcile(new Date(Date.now() + after + 1_000), env.table, env.queues);
      await consumeQueue(ws, whatsapp.provider);
    }
    expect(whatsapp.calls).toEqual([dispatchId]);
    expect(await getDispatch(ws, dispatchId, env.table)).toMatchObject({ status: 'sent' });
    expect(refusing.calls).toEqual([dispatchId]);
  });

  // After an outage longer than a dead attempt's wait for `unknown`, the reconciler's first run on
  // the table's return settled `unknown` the attempt a carried release was about to give back: a
  // message WhatsApp had answered "later" for, never sent (status never moves back from `unknown`).
  it.each([
    ['asked for later', refuse('transient', '130429')],
    ['refused the access token', refuse('credentials', '190')],
  ] as const)('sends the message, once, when WhatsApp %s and the table stays away longer than a dead attempt waits for `unknown`', async (_, answer) => {
    const { ws, dispatchId } = await releaseCarriedThroughOutage(answer);
    // The table is back after more than DEAD_ATTEMPT_UNKNOWN_MS, and the reconciler runs before the carried release is received.
    const back = Date.now() + DEAD_ATTEMPT_UNKNOWN_MS + 1_000;
    await reconcile(new Date(back), env.table, env.queues);
    const whatsapp = scriptedProvider(accept);
    await consumeQueue(ws, whatsapp.provider);
    for (const after of [60_000, RELEASED_GRACE_MS + 1_000, 2 * RELEASED_GRACE_MS]) {
      await reconcile(new Date(back + after), env.table, env.queues);
      await consumeQueue(ws, whatsapp.provider);
    }
    expect(whatsapp.calls).toEqual([dispatchId]);
    expect(await getDispatch(ws, dispatchId, env.table)).toMatchObject({ status: 'sent' });
  });

  // The wait after the note was fixed: a carried release still behind the queue's backlog (a
  // campaign, the fair queue serving the workspace last, messages moved back from the DLQ) found
  // the dispatch settled `unknown`, and the message WhatsApp never had was never sent.
  it.each([
    ['asked for later', refuse('transient', '130429')],
    ['refused the access token', refuse('credentials', '190')],
  ] as const)('sends the message, once, when WhatsApp %s, the table stays away past the wait for `unknown`, and the carried release waits behind the queue’s backlog', async (_, answer) => {
    const { ws, dispatchId } = await releaseCarriedThroughOutage(answer);
    // The carried release is behind a backlog whose oldest message has waited ten minutes; the reconciler runs each minute, knowing that age.
    const carried = await queuedFor(ws);
    expect(carried).toEqual([expect.objectContaining({ dispatchId, release: expect.any(Object) })]);
    const back = Date.now() + DEAD_ATTEMPT_UNKNOWN_MS + 1_000;
    for (const after of [0, 60_000, 2 * 60_000, 3 * 60_000, UNKNOWN_NOTICE_MS + 1_000]) {
      await reconcile(new Date(back + after), env.table, env.queues, { queueAgeMs: 10 * 60_000 });
    }
    expect(await getDispatch(ws, dispatchId, env.table)).toMatchObject({ status: 'processing' });
    // The backlog drains: the carried release is received, and the reconciler goes on.
    const whatsapp = scriptedProvider(accept);
    for (const message of carried) await deliverQueuedDispatch({ ...attempt(message.dispatchId, message.workspaceId), ...message, writeDeadline: Date.now() + 1_000 }, { providerFor: () => whatsapp.provider, store: env.table, queue: env.queues });
    for (const after of [RELEASED_GRACE_MS + 60_000, 3 * RELEASED_GRACE_MS]) {
      await reconcile(new Date(back + after), env.table, env.queues);
      await consumeQueue(ws, whatsapp.provider);
    }
    expect(whatsapp.calls).toEqual([dispatchId]);
    expect(await getDispatch(ws, dispatchId, env.table)).toMatchObject({ status: 'sent' });
  });

  it('keeps the verdict on the queue for as long as the table stays away, and writes it once it answers', async () => {
    const { ws, dispatchId } = await queuedDispatch([]);
    await env.queues.receiveAll();
    let called = false;
    const whatsapp = scriptedProvider(() => ((called = true), accept()));
    const deps = { providerFor: () => whatsapp.provider, store: env.table, queue: env.queues };
    const outage = emulateRefusedWrites(env.table.db, { on: () => true, name: 'ThrottlingException', refusing: () => called });
    const carried: unknown[] = [];
    try {
      expect(await deliverQueuedDispatch({ ...attempt(dispatchId, ws), writeDeadline: Date.now() + 500 }, deps)).toEqual({ outcome: 'carried' });
      // Each receive of the verdict asks the table until its own deadline, then puts it on the queue again.
      for (let receive = 1; receive <= 2; receive++) {
        const [message, ...more] = await queuedFor(ws);
        expect(more).toEqual([]);
        carried.push(message);
        expect(await deliverQueuedDispatch({ ...attempt(dispatchId, ws), ...message, writeDeadline: Date.now() + 500 }, deps)).toEqual({ outcome: 'carried' });
      }
    } finally {
      outage.remove();
    }
    const verdict = { to: 'sent', occurredAt: expect.any(String), providerMessageId: expect.stringMatching(/^wamid\./), ofClaim: 1 };
    expect(carried).toEqual([{ dispatchId, workspaceId: ws, verdict }, { dispatchId, workspaceId: ws, verdict }]);
    const [message] = await queuedFor(ws);
    // Written now, or already: a try the last receive gave up on at its deadline (its read of the
    // dispatch still in flight on a busy host) may write once the table takes writes again, as
    // `abandonAtDeadline` allows; either way the verdict is written once, as carried.
    expect(['sent', 'skipped']).toContain((await deliverQueuedDispatch({ ...attempt(dispatchId, ws), ...message }, deps)).outcome);
    expect(await getDispatch(ws, dispatchId, env.table)).toMatchObject({ status: 'sent', sentAt: message!.verdict!.occurredAt, providerMessageId: message!.verdict!.providerMessageId });
    // SQS may hand the same message out twice: the second finds the verdict written.
    expect(await deliverQueuedDispatch({ ...attempt(dispatchId, ws), ...message }, deps)).toEqual({ outcome: 'skipped' });
    expect(await queuedFor(ws)).toEqual([]);
    expect(whatsapp.calls).toEqual([dispatchId]);
  });

  // A carried message that reached the DLQ (five receives with the table still away, a bad deploy)
  // was moved back by the dlq-not-empty runbook after the reconciler had given its dead claim back
  // and a later attempt had sent the message: its refusal failed that sent dispatch with the first
  // attempt's code, and an integration that resends a failed message sent it twice (decision 211).
  /** Another message of the workspace is sent and delivered, and the reconciler, on those reports, gives the dead claim back and queues the dispatch again. */
  const releasedOnLaterReports = async (ws: string) => {
    const later = await sendAfter(ws);
    await env.queues.receiveAll();
    expect(await deliver(later, ws, scriptedProvider(accept).provider)).toBe('sent');
    expect(await reportOn(ws, later, 'delivered')).toMatchObject({ applied: 1 });
    const judgedAt = Date.now() + REPORT_SILENCE_MS + 1_000;
    await reconcile(new Date(judgedAt), env.table, env.queues);
    await reconcile(new Date(judgedAt + RELEASED_GRACE_MS + 1_000), env.table, env.queues);
  };
  /**
   * A queued dispatch whose first attempt WhatsApp answered with `answer` as the table went away,
   * its verdict carried on the queue (and taken to the DLQ); then, the table back and the number's
   * new sends reported, the reconciler gives the dead claim back and queues the dispatch again.
   * Returns the carried message, as the DLQ holds it.
   */
  const verdictInDlqWhileRequeued = async (answer: Parameters<typeof scriptedProvider>[0]) => {
    const { ws, dispatchId } = await queuedDispatch([]);
    await env.queues.receiveAll();
    let called = false;
    const refusing = scriptedProvider(() => ((called = true), answer()));
    const outage = emulateRefusedWrites(env.table.db, { on: () => true, name: 'ThrottlingException', refusing: () => called });
    let dlq: DispatchMessage[];
    try {
      expect(await deliverQueuedDispatch({ ...attempt(dispatchId, ws), writeDeadline: Date.now() + 1_000 }, { providerFor: () => refusing.provider, store: env.table, queue: env.queues })).toEqual({ outcome: 'carried' });
      dlq = await queuedFor(ws);
    } finally {
      outage.remove();
    }
    expect(dlq).toEqual([expect.objectContaining({ dispatchId, verdict: expect.any(Object) })]);
    await releasedOnLaterReports(ws);
    return { ws, dispatchId, dlq };
  };
  /** What the runbook's redrive does: each message back on the dispatch queue, and received. */
  const redrive = async (messages: DispatchMessage[], provider: Provider) => {
    for (const message of messages) await deliverQueuedDispatch({ ...attempt(message.dispatchId, message.workspaceId), ...message, writeDeadline: Date.now() + 1_000 }, { providerFor: () => provider, store: env.table, queue: env.queues });
  };
  /** A message carried before decision 211: its verdict names no claim. */
  const unnamed = (message: DispatchMessage): DispatchMessage => ({ ...message, verdict: { ...message.verdict!, ofClaim: undefined } });

  it.each([
    ['as carried now', (message: DispatchMessage) => message],
    ['as carried before the verdict named its claim', unnamed],
  ])('does not fail with a refusal moved back from the DLQ (%s) a dispatch a later attempt sent', async (_, carried) => {
    const { ws, dispatchId, dlq } = await verdictInDlqWhileRequeued(() => Promise.reject(new ProviderError('permanent', '131053', 'Media upload error')));
    expect(dlq).toEqual([expect.objectContaining({ verdict: expect.objectContaining({ to: 'failed', failureCode: '131053', ofClaim: 1 }) })]);
    const whatsapp = scriptedProvider(accept);
    await consumeQueue(ws, whatsapp.provider);
    expect(whatsapp.calls).toEqual([dispatchId]);
    expect(await getDispatch(ws, dispatchId, env.table)).toMatchObject({ status: 'sent' });

    // The operator fixes the cause and moves the DLQ's messages back, as the runbook says.
    const logs = captureLogLines();
    try {
      await redrive(dlq.map(carried), whatsapp.provider);
      expect(logs.at('WARN')).toEqual([expect.objectContaining({ message: 'Skipped a carried verdict: its attempt is not the dispatch’s last', dispatchId, verdict: 'failed', attempts: 2, status: 'sent' })]);
    } finally {
      logs.restore();
    }
    const after = await getDispatch(ws, dispatchId, env.table);
    expect({ status: after?.status, failureCode: after?.failureCode ?? null }).toEqual({ status: 'sent', failureCode: null });
    expect(whatsapp.calls).toEqual([dispatchId]);
  });

  it('does not settle `unknown` with a timeout moved back from the DLQ a later attempt in flight: its own answer is recorded', async () => {
    const { ws, dispatchId, dlq } = await verdictInDlqWhileRequeued(refuse('unknown', 'timeout'));
    // A consumer has claimed the dispatch again and is asking WhatsApp when the redrive lands.
    const claim = await claimDispatch(dispatchId, new Date(), env.table, `sandbox:${ws}`);
    expect(claim).toMatchObject({ claimed: true, dispatch: { attempts: 2 } });
    await redrive(dlq, scriptedProvider(accept).provider);
    expect(await getDispatch(ws, dispatchId, env.table)).toMatchObject({ status: 'processing', attemptStartedAt: claim.claimed && claim.dispatch.attemptStartedAt });
  });

  it('gives back nothing with a release moved back from the DLQ once a later attempt sent the dispatch: the delivery it queues is skipped', async () => {
    const { ws, dispatchId } = await releaseCarriedThroughOutage(refuse('transient', '130429'));
    const dlq = await queuedFor(ws);
    expect(dlq).toEqual([expect.objectContaining({ release: expect.objectContaining({ attemptStartedAt: expect.any(String) }) })]);
    // Meanwhile the reconciler gave the dead claim back (the number's reports passed it), and a later attempt sent it.
    await releasedOnLaterReports(ws);
    const whatsapp = scriptedProvider(accept);
    await consumeQueue(ws, whatsapp.provider);
    const sent = await getDispatch(ws, dispatchId, env.table);
    expect(sent).toMatchObject({ status: 'sent' });

    await redrive(dlq, whatsapp.provider);
    expect(await deliverQueuedDispatch(attempt(dispatchId, ws), { providerFor: () => whatsapp.provider, store: env.table, queue: env.queues })).toEqual({ outcome: 'skipped' });
    expect(await getDispatch(ws, dispatchId, env.table)).toEqual(sent);
    expect(whatsapp.calls).toEqual([dispatchId]);
  });
});

describe('a claim whose answer comes after its deadline (decision 162)', () => {
  // A claim abandoned at its deadline and applied after was held by an attempt id no receive knew:
  // the next receive was refused it and skipped the message, and the dispatch, never sent, waited
  // for the reconciler (then `unknown`, with no reports on its number).
  it('waits for the claim it sent: the claim it took is its own, and the message is sent once', async () => {
    const { ws, dispatchId } = await queuedDispatch(['promo']);
    await env.queues.receiveAll();
    const whatsapp = scriptedProvider(accept);
    // The claim reaches the table, and its answer comes once its deadline has passed (a clock running ahead stands in for the wait).
    const slowClaims: Store = {
      tableName: env.table.tableName,
      db: {
        send: async (command: { input: { UpdateExpression?: string } }) => {
          if (!command.input.UpdateExpression?.includes('attemptId = :attempt')) return env.table.db.send(command as never);
          const clock = fastClock(CLAIM_OUTCOME_DEADLINE_MS);
          try {
            await new Promise((resolve) => setTimeout(resolve, 200));
            return await env.table.db.send(command as never);
          } finally {
            clock.restore();
          }
        },
      } as unknown as Store['db'],
    };
    expect(await deliverQueuedDispatch(attempt(dispatchId, ws), { providerFor: () => whatsapp.provider, store: slowClaims, queue: env.queues })).toEqual({ outcome: 'sent' });
    expect(whatsapp.calls).toEqual([dispatchId]);
    expect(await getDispatch(ws, dispatchId, env.table)).toMatchObject({ status: 'sent' });
  });

  // Nor may a claim be left taken when every answer to it was lost until its deadline: the receive
  // gave up not knowing whether the table took it, under an attempt id no later receive knew, and
  // WhatsApp was never asked. Refused to every later receive, the dispatch waited for the
  // reconciler, which, with no reports on its number, settled it `unknown`, never sent (the SRE
  // review's test).
  it('gives back a claim the table took while every answer to it was lost until its deadline, and sends the message once', async () => {
    const { ws, dispatchId } = await queuedDispatch(['promo']);
    await env.queues.receiveAll();
    const whatsapp = scriptedProvider(accept);
    // The claim reaches the table and its answer is lost (the SDK's request timeout); the network is
    // then away: every call after it, the claim's tries and the release's, fails to connect. The
    // claim asks again until CLAIM_OUTCOME_DEADLINE_MS (10 s): from its lost answer on, a clock
    // running ahead brings that deadline after a few tries.
    const table = claimAnswerLost();
    try {
      const first = await deliverQueuedDispatch({ ...attempt(dispatchId, ws), writeDeadline: Date.now() + 1_000 }, { providerFor: () => whatsapp.provider, store: table.store, queue: env.queues });
      expect(first).toMatchObject({ outcome: 'retry', cause: { name: 'TimeoutError' } });
    } finally {
      table.restoreClock();
    }
    expect(whatsapp.calls).toEqual([]);
    expect(table.claimTries()).toBeGreaterThan(1);

    // The table answers again: the message comes back, as SQS hands it out. Then the reconciler's
    // runs, minutes apart, and whatever the queue holds for the dispatch is delivered.
    await deliverQueuedDispatch(attempt(dispatchId, ws, 2), { providerFor: () => whatsapp.provider, store: env.table, queue: env.queues });
    const claimed = (await getDispatch(ws, dispatchId, env.table))!;
    const started = Date.parse(claimed.attemptStartedAt ?? claimed.updatedAt);
    for (const at of [DEAD_ATTEMPT_UNKNOWN_MS + 60_000, DEAD_ATTEMPT_UNKNOWN_MS + UNKNOWN_NOTICE_MS + 120_000]) {
      await reconcile(new Date(started + at), env.table, env.queues);
      for (const message of ((await env.queues.receiveAll()) as DispatchMessage[]).filter((m) => m.dispatchId === dispatchId)) {
        await deliverQueuedDispatch({ ...attempt(dispatchId, ws), ...message }, { providerFor: () => whatsapp.provider, store: env.table, queue: env.queues });
      }
    }
    // WhatsApp was never asked: the message is sent, once; not settled `unknown` unsent.
    expect({ status: (await getDispatch(ws, dispatchId, env.table))?.status, calls: whatsapp.calls }).toEqual({ status: 'sent', calls: [dispatchId] });
  });

  it('gives back only the claim such a release names by its id: another attempt’s claim taken the same millisecond stands, and is never sent twice', async () => {
    const { ws, dispatchId } = await queuedDispatch(['promo']);
    await env.queues.receiveAll();
    expect(await claimDispatch(dispatchId, new Date(), env.table, `sandbox:${ws}`)).toMatchObject({ claimed: true });
    const taken = (await getDispatch(ws, dispatchId, env.table))!;
    const whatsapp = scriptedProvider(accept);
    const deps = { providerFor: () => whatsapp.provider, store: env.table, queue: env.queues };
    const release = { attemptStartedAt: taken.attemptStartedAt!, attemptId: randomUUID(), providerSaidLater: false };
    expect(await deliverQueuedDispatch({ ...attempt(dispatchId, ws), release }, deps)).toEqual({ outcome: 'requeued' });
    const queued = ((await env.queues.receiveAll()) as DispatchMessage[]).filter((message) => message.dispatchId === dispatchId);
    expect(queued).toEqual([{ dispatchId, workspaceId: ws }]);
    expect(await deliverQueuedDispatch({ ...attempt(dispatchId, ws), ...queued[0]! }, deps)).toEqual({ outcome: 'skipped' });
    expect(await getDispatch(ws, dispatchId, env.table)).toEqual(taken);
    expect(whatsapp.calls).toEqual([]);
  });
});

describe('a claim whose every answer was lost while the queue was away too (decision 225)', () => {
  // Decision 218's release of such a claim, neither written nor carried (the network away from the
  // function, SQS's calls as well as DynamoDB's), was given up at once: the claim's id died with the
  // invocation, every later receive was refused the claim, and the reconciler, with no reports of a
  // message WhatsApp never had, settled it `unknown` (the skeptic review's test).
  it('asks the table and the queue in turn, until the function’s deadline, to give the claim back; the message is then sent once', async () => {
    const { ws, dispatchId } = await queuedDispatch(['promo']);
    await env.queues.receiveAll();
    const whatsapp = scriptedProvider(accept);
    // The claim reaches the table and its answer is lost; from then on the table fails to connect,
    // and so does the queue, for its first call: it is back for the next. A clock running ahead
    // brings the claim's deadline after a few tries, and the release's rounds within the function's time.
    const table = claimAnswerLost();
    let queueCalls = 0;
    const queueBack = { queueUrl: env.queues.queueUrl, sqs: { send: (command: never) => (++queueCalls === 1 ? Promise.reject(connectFails()) : env.queues.sqs.send(command)) } as unknown as typeof env.queues.sqs };
    try {
      const first = await deliverQueuedDispatch({ ...attempt(dispatchId, ws), deadline: Date.now() + 60_000 }, { providerFor: () => whatsapp.provider, store: table.store, queue: queueBack });
      expect(first).toMatchObject({ outcome: 'retry', cause: { name: 'TimeoutError' } });
    } finally {
      table.restoreClock();
    }
    expect({ calls: whatsapp.calls, queueCalls }).toEqual({ calls: [], queueCalls: 2 });

    // The network is back: the message comes back, and the carried release is received, in either order.
    await deliverQueuedDispatch(attempt(dispatchId, ws, 2), { providerFor: () => whatsapp.provider, store: env.table, queue: env.queues });
    for (let round = 0; round < 2; round++) {
      for (const message of ((await env.queues.receiveAll()) as DispatchMessage[]).filter((m) => m.dispatchId === dispatchId)) {
        await deliverQueuedDispatch({ ...attempt(dispatchId, ws), ...message }, { providerFor: () => whatsapp.provider, store: env.table, queue: env.queues });
      }
    }
    // WhatsApp was never asked: the message is sent, once.
    expect({ status: (await getDispatch(ws, dispatchId, env.table))?.status, calls: whatsapp.calls }).toEqual({ status: 'sent', calls: [dispatchId] });
  });
});

describe('the deliver consumer when DynamoDB refuses a status write for a reason it does not decide on', () => {
  // Only a failed condition says the dispatch moved first, and only conflicts are waited out. Any
  // other reason (an item past 400 KB: ValidationException) was read as "moved first" as well, and
  // the send the provider accepted was settled `sent` with its dispatch `processing`.
  it('throws it, so the message comes back instead of passing for recorded: one provider call, nothing written', async () => {
    const { refused } = await whileStatusWritesRefused('ValidationException', async ({ ws, dispatchId, provider }) => {
      const verdict = await deliverQueuedDispatch(attempt(dispatchId, ws), { providerFor: () => provider, store: env.table });
      expect(verdict).toMatchObject({ outcome: 'retry', cause: { name: 'ValidationException' } });
    });
    expect(refused).toBe(1);
  });
});

describe('the queue around the consumer', () => {
  it('moves a message its consumer keeps failing to the DLQ after maxReceiveCount, as Lambda’s event source would', async () => {
    const dlq = await env.queues.sqs.send(new CreateQueueCommand({ QueueName: `dlq-${randomUUID().slice(0, 8)}` }));
    const { Attributes } = await env.queues.sqs.send(new GetQueueAttributesCommand({ QueueUrl: dlq.QueueUrl!, AttributeNames: ['QueueArn'] }));
    const source = await env.queues.sqs.send(
      new CreateQueueCommand({
        QueueName: `src-${randomUUID().slice(0, 8)}`,
        Attributes: { VisibilityTimeout: '1', RedrivePolicy: JSON.stringify({ deadLetterTargetArn: Attributes!.QueueArn, maxReceiveCount: 2 }) },
      }),
    );
    await env.queues.sqs.send(new SendMessageCommand({ QueueUrl: source.QueueUrl!, MessageBody: '{"poison":true}' }));
    let invocations = 0;
    const poller = startQueuePoller({
      sqs: env.queues.sqs,
      queueUrl: source.QueueUrl!,
      queueArn: 'arn:aws:sqs:local:000000000000:src',
      region: 'local',
      concurrency: 1,
      handler: (event) => {
        invocations += 1;
        return Promise.resolve({ batchItemFailures: event.Records.map((record) => ({ itemIdentifier: record.messageId })) });
      },
      onError: () => undefined,
    });
    // Waits on the DLQ itself: the test's timeout bounds a redrive that never comes.
    let dead: unknown[] = [];
    while (!dead.length) {
      await new Promise((resolve) => setTimeout(resolve, 300));
      const { Messages = [] } = await env.queues.sqs.send(new ReceiveMessageCommand({ QueueUrl: dlq.QueueUrl!, WaitTimeSeconds: 0 }));
      dead = Messages.map((message) => message.Body);
    }
    await poller.stop();
    expect(dead).toEqual(['{"poison":true}']);
    expect(invocations).toBe(2);
  }, 30_000);

  it('reconciles: re-enqueues a dispatch stuck queued once, and settles a dead attempt as unknown', async () => {
    const stuck = await queuedDispatch([], new Date(Date.now() - 10 * 60_000));
    await env.queues.receiveAll(); // its queue message was lost
    const now = new Date();
    const first = await reconcile(now, env.table, env.queues);
    expect(first.requeued).toBeGreaterThanOrEqual(1);
    expect(await env.queues.receiveAll()).toContainEqual({ dispatchId: stuck.dispatchId, workspaceId: stuck.ws });
    const again = await reconcile(now, env.table, env.queues);
    expect(await env.queues.receiveAll()).not.toContainEqual({ dispatchId: stuck.dispatchId, workspaceId: stuck.ws });
    expect(again.requeued).toBe(0);

    const dead = await queuedDispatch([], new Date(Date.now() - 30 * 60_000));
    await claimDispatch(dead.dispatchId, new Date(Date.now() - DEAD_ATTEMPT_UNKNOWN_MS - 60_000), env.table);
    // Due `unknown`: noted by this run, settled by the first run a notice later (decision 163).
    const noted = await reconcile(now, env.table, env.queues);
    expect(noted.noted).toBeGreaterThanOrEqual(1);
    await reconcile(new Date(now.getTime() + UNKNOWN_NOTICE_MS - 1_000), env.table, env.queues);
    expect(await getDispatch(dead.ws, dead.dispatchId, env.table)).toMatchObject({ status: 'processing' });
    const summary = await reconcile(new Date(now.getTime() + UNKNOWN_NOTICE_MS), env.table, env.queues);
    expect(summary.settledUnknown).toBeGreaterThanOrEqual(1);
    expect(await getDispatch(dead.ws, dead.dispatchId, env.table)).toMatchObject({ status: 'unknown' });
    // Settled: out of the pending entries, so no later run reads it.
    expect(Object.keys((await env.table.scanAll()).find((item) => item.pk === keys.dispatch(dead.dispatchId).pk && item.sk === 'DSP')!).filter((name) => name.startsWith('gsi'))).toEqual([]);
  });

  // Read as dead, then given back and claimed again before the reconciler's write (a carried
  // release, decision 161): settled `unknown` on that live attempt, the message its provider was
  // answering for was never recorded, and a "later" left it `unknown`, never sent.
  it('settles `unknown` only the dead attempt it judged, not a new attempt taken since its read', async () => {
    const { ws, dispatchId } = await queuedDispatch([], new Date(Date.now() - 30 * 60_000));
    await claimDispatch(dispatchId, new Date(Date.now() - DEAD_ATTEMPT_UNKNOWN_MS - 60_000), env.table);
    const dead = (await getDispatch(ws, dispatchId, env.table))!;
    let retaken: string | undefined;
    const racing: Store = {
      tableName: env.table.tableName,
      db: {
        send: async (command: { input: { Key?: { pk?: string }; ExpressionAttributeValues?: Record<string, unknown> } }) => {
          if (!retaken && command.input.Key?.pk === keys.dispatch(dispatchId).pk && command.input.ExpressionAttributeValues?.[':to'] === 'unknown') {
            await releaseClaim(dead, new Date(), env.table, true);
            const claim = await claimDispatch(dispatchId, new Date(), env.table);
            retaken = claim.claimed ? claim.dispatch.attemptStartedAt : 'not claimed';
          }
          return env.table.db.send(command as never);
        },
      } as unknown as Store['db'],
    };
    await reconcile(new Date(), env.table, env.queues); // notes it due `unknown`
    await reconcile(new Date(Date.now() + UNKNOWN_NOTICE_MS), racing, env.queues);
    expect(retaken).toEqual(expect.any(String));
    expect(await getDispatch(ws, dispatchId, env.table)).toMatchObject({ status: 'processing', attemptStartedAt: retaken });
  });

  it('leaves a queued dispatch whose message may still be waiting behind the queue’s backlog, and queues it again once it has waited longer than the queue’s oldest message (decision 137)', async () => {
    const waiting = await queuedDispatch([], new Date(Date.now() - 10 * 60_000));
    await env.queues.receiveAll(); // its message is the one the queue has held longest, or it was lost: the queue's age tells
    const message = { dispatchId: waiting.dispatchId, workspaceId: waiting.ws };
    const now = new Date();

    // The queue's oldest message has waited ten minutes: this dispatch's may be that one.
    const behindBacklog = await reconcile(now, env.table, env.queues, { queueAgeMs: 10 * 60_000 });
    expect(behindBacklog).toMatchObject({ requeued: 0, waiting: expect.any(Number) });
    expect(behindBacklog.waiting).toBeGreaterThanOrEqual(1);
    expect(await env.queues.receiveAll()).not.toContainEqual(message);
    const { Item: untouched } = await env.table.db.send(new GetCommand({ TableName: env.table.tableName, Key: keys.dispatch(waiting.dispatchId) }));
    expect([untouched!.status, untouched!.requeues]).toEqual(['queued', undefined]);

    // The oldest has waited a minute: a message ten minutes old is no longer in the queue.
    const lost = await reconcile(now, env.table, env.queues, { queueAgeMs: 60_000 });
    expect(lost.requeued).toBeGreaterThanOrEqual(1);
    expect(await env.queues.receiveAll()).toContainEqual(message);
  });

  // docs/deploy.md, "Delivery pace": a backlog, "whether a campaign's, a number's pace or a workspace the fair queue serves
  // last, is not taken for lost messages". The pace holds a dispatch back by putting it on the queue again as a NEW message
  // (decision 136) and writes nothing to the dispatch: its message is then younger than its wait, which is all the
  // reconciler compared (decision 137), so a paced dispatch whose message was still in the queue was queued a second time.
  it('leaves a dispatch its number’s pace held back: its message, queued again by the pace, is still waiting in the queue', async () => {
    // Queued five minutes ago in a campaign of a WhatsApp number that takes one message a second.
    const paced = await queuedDispatch([], new Date(Date.now() - 5 * 60_000));
    const number = `pace-${randomUUID().slice(0, 8)}`;
    await saveWorkspace({ id: paced.ws, name: paced.ws, rupiahPerCredit: 150, settings: { provider: 'whatsapp', whatsappPhoneNumberId: number, whatsappMessagesPerSecond: 1 } }, new Date(), env.table);
    clearWorkspaceCache();
    clearNumberPaces();
    await env.queues.receiveAll();
    // Three minutes ago the consumer received it behind 60 of the campaign's others, found the number's second full and
    // put it back delayed to the second with room for it, as holdBackForPace does (lambdas/handlers/deliver.ts).
    const message = { dispatchId: paced.dispatchId, workspaceId: paced.ws };
    const waits = await paceDeliveries([...Array.from({ length: 60 }, () => ({ workspaceId: paced.ws })), message], new Date(Date.now() - 3 * 60_000), env.table);
    expect(waits.at(-1)).toBe(60);
    expect(await requeueDispatches([{ message, delaySeconds: waits.at(-1)! }], env.queues)).toEqual([]);

    // CloudWatch's age of the queue's oldest message: that paced copy, put back three minutes ago.
    const run = await reconcile(new Date(), env.table, env.queues, { queueAgeMs: 3 * 60_000 });

    // Its message is in the queue: nothing is lost, so nothing may be queued again.
    const { Item: dispatch } = await env.table.db.send(new GetCommand({ TableName: env.table.tableName, Key: keys.dispatch(paced.dispatchId) }));
    expect({ status: dispatch!.status, requeues: dispatch!.requeues ?? null, secondMessage: (await env.queues.receiveAll()).filter((queued) => (queued as DispatchMessage).dispatchId === paced.dispatchId) }).toEqual({
      status: 'queued',
      requeues: null,
      secondMessage: [],
    });
    expect(run.waiting).toBeGreaterThanOrEqual(1);

    // Three minutes on, the pace's last hold older than its grace and than the queue's oldest message: taken for lost, as before.
    expect((await reconcile(new Date(Date.now() + 3 * 60_000), env.table, env.queues, { queueAgeMs: 60_000 })).requeued).toBeGreaterThanOrEqual(1);
    expect((await env.queues.receiveAll()).filter((queued) => (queued as DispatchMessage).dispatchId === paced.dispatchId)).toEqual([message]);
  });

  // Decision 241 reads the number's hold as a hint ("Not written, the reconciler may queue a held dispatch a second time"),
  // and paceHeldUntil says it is undefined when it "cannot be read". One refused read of PACE#<number>/HELD (a throttled
  // GetItem) must not make the whole run throw: every lost dispatch of every workspace would wait for a later run, and a
  // read refused on every run strands them all.
  it('queues lost dispatches again though the read of a number’s pace hold is refused', async () => {
    const paced = await queuedDispatch([], new Date(Date.now() - 10 * 60_000));
    const number = `pace-${randomUUID().slice(0, 8)}`;
    await saveWorkspace({ id: paced.ws, name: paced.ws, rupiahPerCredit: 150, settings: { provider: 'whatsapp', whatsappPhoneNumberId: number, whatsappMessagesPerSecond: 1 } }, new Date(), env.table);
    const other = await queuedDispatch([], new Date(Date.now() - 10 * 60_000));
    clearWorkspaceCache();
    await env.queues.receiveAll();
    const throttled: Store = {
      tableName: env.table.tableName,
      db: {
        send: (command: { input: { Key?: { sk?: string } } }) =>
          command instanceof GetCommand && command.input.Key?.sk === 'HELD'
            ? Promise.reject(Object.assign(new Error('Throughput exceeds the current capacity of your table or index.'), { name: 'ThrottlingException', $metadata: { httpStatusCode: 400 } }))
            : env.table.db.send(command as never),
      } as unknown as Store['db'],
    };

    const run = await reconcile(new Date(), throttled, env.queues).then(
      (summary) => ({ requeued: summary.requeued >= 2 }),
      (error: Error) => ({ threw: error.name }),
    );

    const status = async (dispatchId: string) => (await env.table.db.send(new GetCommand({ TableName: env.table.tableName, Key: keys.dispatch(dispatchId) }))).Item!.requeues ?? null;
    expect({ run, otherRequeues: await status(other.dispatchId), pacedRequeues: await status(paced.dispatchId) }).toEqual({ run: { requeued: true }, otherRequeues: 1, pacedRequeues: 1 });
  });

  it('re-enqueues a released attempt whose queue message was lost, minutes later and not before', async () => {
    const released = await queuedDispatch([], new Date(Date.now() - 10 * 60_000));
    expect(await deliver(released.dispatchId, released.ws, scriptedProvider(refuse('transient', '130429')).provider)).toBe('retry');
    await env.queues.receiveAll(); // its queue message was lost
    const message = { dispatchId: released.dispatchId, workspaceId: released.ws };

    await reconcile(new Date(Date.now() + 60_000), env.table, env.queues);
    expect(await env.queues.receiveAll()).not.toContainEqual(message);
    expect(RELEASED_GRACE_MS).toBeLessThanOrEqual(5 * 60_000);
    await reconcile(new Date(Date.now() + RELEASED_GRACE_MS + 1_000), env.table, env.queues);
    expect(await env.queues.receiveAll()).toContainEqual(message);
    expect(await deliver(released.dispatchId, released.ws, scriptedProvider(accept).provider, 2)).toBe('sent');
  });
});

// docs/architecture.md (the delivery path, 6): a dead attempt is released once the number's reports show WhatsApp never took it,
// five minutes after it; decision 137: a queued dispatch whose message may still wait behind a campaign's backlog is left alone.
describe('the reconciler behind a campaign’s backlog of more queued dispatches than a run acts on', () => {
  const shardOf = (dispatchId: string) => parseInt(dispatchId.slice(-2), 16) % PENDING_SHARDS;
  const backlog: Record<string, unknown>[] = [];
  const perShard = new Map<number, number>();
  // Another workspace's campaign, queued half an hour ago and still waiting in the queue (the fair queue serves it last).
  beforeAll(async () => {
    const before = new Date(Date.now() - 30 * 60_000);
    const { dispatchId } = await queuedDispatch([], before);
    const model = (await getDispatchById(dispatchId, env.table))!;
    while ([...Array(PENDING_SHARDS).keys()].some((shard) => (perShard.get(shard) ?? 0) < 210)) {
      const id = randomUUID();
      perShard.set(shardOf(id), (perShard.get(shardOf(id)) ?? 0) + 1);
      backlog.push(dispatchItem({ ...model, dispatchId: id, createdAt: before.toISOString(), updatedAt: before.toISOString() }));
    }
    await batchPut(env.table, backlog);
  });
  afterAll(() => batchWrite(env.table, backlog.map((item) => ({ delete: keys.dispatch(String(item.dispatchId)) }))));

  /** A workspace's message, claimed now, its consumer killed before it called WhatsApp; the number's reports flow, and none comes for it. */
  async function deadAttempt() {
    const { ws, dispatchId } = await queuedDispatch([]);
    await claimDispatch(dispatchId, new Date(Date.now() - 1_000), env.table, `sandbox:${ws}`);
    const later = await sendAfter(ws);
    expect(await deliver(later, ws, scriptedProvider(accept).provider)).toBe('sent');
    await reportOn(ws, later, 'delivered');
    return { ws, dead: dispatchId };
  }

  it('judges a dead attempt behind it', async () => {
    const { ws, dead } = await deadAttempt();

    // The campaign's oldest message has waited as long as its dispatches (CloudWatch's age): they are `waiting`, as decision 137 wants.
    const judgedAt = Date.now() + REPORT_SILENCE_MS + 1_000;
    for (const minutes of [0, 10, 30, 60]) await reconcile(new Date(judgedAt + minutes * 60_000), env.table, env.queues, { queueAgeMs: 40 * 60_000 + minutes * 60_000 });
    // The dead attempt is released by one of the runs in the hour after it was due, as it is without a backlog.
    // (Its own state: the file's other tests leave dead attempts these runs release too.)
    const judged = await getDispatch(ws, dead, env.table);
    expect({ status: judged?.status, attemptStartedAt: judged?.attemptStartedAt ?? null }).toEqual({ status: 'processing', attemptStartedAt: null });
  });

  it('reads on from where the last run stopped when a shard holds more than a run reads, and from the oldest again once it read to the end', async () => {
    const { ws, dead } = await deadAttempt();
    const judgedAt = Date.now() + REPORT_SILENCE_MS + 1_000;
    const ahead = perShard.get(shardOf(dead))!;
    const runs = [];
    for (let run = 0; run <= Math.ceil(ahead / 100) + 1; run++) {
      runs.push(await reconcile(new Date(judgedAt + run * 60_000), env.table, env.queues, { queueAgeMs: 40 * 60_000 + run * 60_000, readsPerShard: 100 }));
    }
    // No run read more than 100 entries a shard, and one past the campaign's released the dead attempt, once.
    expect(runs.every((run) => run.waiting <= PENDING_SHARDS * 100)).toBe(true);
    expect({ first: runs[0]!.released, released: runs.reduce((sum, run) => sum + run.released, 0) }).toEqual({ first: 0, released: 1 });
    const released = (await getDispatch(ws, dead, env.table))!;
    expect({ status: released.status, attemptStartedAt: released.attemptStartedAt ?? null }).toEqual({ status: 'processing', attemptStartedAt: null });
    // A run that reads every shard to its end leaves nothing to read on from: the next starts again at the campaign's oldest.
    const again = async () => (await reconcile(new Date(judgedAt), env.table, env.queues, { queueAgeMs: 40 * 60_000, readsPerShard: 1_000 })).waiting;
    await again();
    expect(await again()).toBeGreaterThanOrEqual(PENDING_SHARDS * 210);
  });
});
