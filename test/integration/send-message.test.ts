import { randomUUID } from 'node:crypto';
import { TransactionConflictException } from '@aws-sdk/client-dynamodb';
import type { BuildMiddleware } from '@smithy/types';
import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { getDispatch } from '../../lambdas/domain/messages/dispatch-repository';
import { IN_FLIGHT_WINDOW_MS } from '../../lambdas/domain/messages/idempotency';
import { sendTemplateMessage, type SendTemplateMessage } from '../../lambdas/domain/messages/send-message';
import { AppError } from '../../lambdas/shared/errors';
import type { QueueTarget } from '../../lambdas/shared/queue';
import { keys } from '../../lambdas/shared/table';
import { CONFLICT_RETRIES } from '../../lambdas/shared/writes';
import { conversationIdFor } from '../../lambdas/domain/conversations/conversation-id';
import { deliverDispatch } from '../../lambdas/domain/delivery/deliver-dispatch';
import { QUEUED_GRACE_MS, reconcile } from '../../lambdas/domain/delivery/reconcile';
import type { Provider } from '../../lambdas/domain/providers/provider';
import { useTableAndQueues } from '../support/sqs';
import { emulateTransactionConflicts } from '../support/transaction-conflicts';
import { sendCommand, sendingWorkspace } from '../support/send-commands';
import { template } from '../support/send-fixtures';
import { saveTemplate } from '../../lambdas/domain/templates/template-repository';

const env = useTableAndQueues();


/** A workspace of the test's own, with the fixture template. */
const workspace = (settings: Parameters<typeof sendingWorkspace>[1] = {}) => sendingWorkspace(env.table, settings);
/** The fixture send, tagged `promo` unless the test says otherwise. */
// One instant per test: a test's sends on both sides of WIB midnight (17:00 UTC) would be on two days,
// and one the test expects refused as "already sent today" would go through.
let testNow = new Date();
beforeEach(() => (testNow = new Date()));
const command = (workspaceId: string, overrides: Partial<SendTemplateMessage> = {}) => sendCommand(workspaceId, { trackingTags: ['promo'], now: testNow, ...overrides });
const send = (cmd: SendTemplateMessage, queue: QueueTarget = env.queues) => sendTemplateMessage(cmd, { store: env.table, queue });
const itemsOf = async (workspaceId: string, entity: string) => (await env.table.scanAll()).filter((item) => item.workspaceId === workspaceId && item.entity === entity);
const acceptingProvider: Provider = { send: () => Promise.resolve({ providerMessageId: `wamid.${randomUUID()}` }), settle: () => Promise.resolve() };
const rejection = (promise: Promise<unknown>) => promise.then(() => undefined, (error: unknown) => error as AppError);

afterEach(async () => {
  await env.queues.receiveAll();
});

describe('sending a template message against DynamoDB Local and the SQS emulator', () => {
  it('stores the queued dispatch, its conversation and message, and puts one message on the queue', async () => {
    const ws = await workspace();
    const result = await send(command(ws, { contactName: 'Budi' }));

    expect(result).toEqual({ dispatchId: expect.any(String), status: 'queued', replayed: false });
    expect(await getDispatch(ws, result.dispatchId, env.table)).toMatchObject({
      status: 'queued',
      to: '+6281234567890',
      bodyParameters: ['Budi', 'A-1'],
      creditCost: 2,
      amountRupiah: 300,
      trackingTags: ['promo'],
    });
    const conversationId = conversationIdFor(ws, 'whatsapp', '+6281234567890');
    const [conversation] = await itemsOf(ws, 'conversation');
    expect(conversation).toMatchObject({ ...keys.conversation(ws, conversationId), contactName: 'Budi', messageCount: 1, outboundCount: 1, lastMessagePreview: 'Halo Budi, pesanan A-1 sudah dikirim.' });
    expect((await env.table.scanAll()).filter((item) => item.entity === 'conversationMessage' && item.conversationId === conversationId)).toHaveLength(1);
    expect(await env.queues.receiveAll()).toEqual([{ dispatchId: result.dispatchId, workspaceId: ws }]);
  });

  it('previews a conversation with its message’s first 120 characters, never half an emoji', async () => {
    const ws = await workspace();
    // "Halo " then emoji, each two UTF-16 units: a cut at 120 units would split the 58th in half.
    await send(command(ws, { to: '081234567811', variables: { name: '😀'.repeat(200), order: 'A-1' } }));
    const [conversation] = await itemsOf(ws, 'conversation');
    expect(conversation!.lastMessagePreview).toBe(`Halo ${'😀'.repeat(115)}`);
  });

  it('writes nothing for a rejected request', async () => {
    const ws = await workspace();
    await saveTemplate(ws, { ...template, id: '7b0c5c3e-0000-4000-8000-0000000000ff', versions: [{ ...template.versions[0]!, id: '7b0c5c3e-0000-4000-8000-0000000000fe', status: 'DRAFT' }] }, env.table);
    const before = (await env.table.scanAll()).length;

    const errors = await Promise.all([
      rejection(send(command(ws, { variables: { name: 'Budi' } }))),
      rejection(send(command(ws, { to: 'not a phone' }))),
      rejection(send(command(ws, { templateId: randomUUID() }))),
      rejection(send(command(ws, { templateId: '7b0c5c3e-0000-4000-8000-0000000000ff' }))),
    ]);

    expect(errors.map((error) => error?.code)).toEqual(['missing_variables', 'validation_failed', 'template_not_found', 'template_not_ready']);
    expect((await env.table.scanAll()).length).toBe(before);
    expect(await env.queues.receiveAll()).toEqual([]);
  });

  it('creates exactly one dispatch for concurrent identical requests with one Idempotency-Key', async () => {
    const ws = await workspace();
    const idempotencyKey = `order-${randomUUID()}`;
    const outcomes = await Promise.all(Array.from({ length: 10 }, () => send(command(ws, { idempotencyKey })).catch((error: AppError) => error)));

    const dispatches = await itemsOf(ws, 'dispatch');
    expect(dispatches).toHaveLength(1);
    for (const outcome of outcomes) {
      if (outcome instanceof AppError) expect([outcome.status, outcome.code]).toEqual([409, 'idempotency_conflict']);
      else expect(outcome.dispatchId).toBe(dispatches[0]!.dispatchId);
    }
    expect(outcomes.filter((outcome) => !(outcome instanceof AppError) && !outcome.replayed)).toHaveLength(1);
    expect(await env.queues.receiveAll()).toEqual([{ dispatchId: dispatches[0]!.dispatchId, workspaceId: ws }]);

    const replay = await send(command(ws, { idempotencyKey }));
    expect(replay).toEqual({ dispatchId: dispatches[0]!.dispatchId, status: 'queued', replayed: true });
    await expect(send(command(ws, { idempotencyKey, variables: { name: 'Budi', order: 'A-2' } }))).rejects.toMatchObject({ code: 'idempotency_conflict' });
  });

  it('answers a replay with its original result before any other check: it uses no send allowance, and a template paused since does not turn it into a 422', async () => {
    const ws = await workspace({ sendsPerMinute: 3 });
    const now = new Date('2026-04-01T10:00:15.000Z');
    const idempotencyKey = `order-${randomUUID()}`;
    const first = await send(command(ws, { idempotencyKey, now }));

    const replays = await Promise.all(Array.from({ length: 10 }, () => send(command(ws, { idempotencyKey, now }))));
    expect(replays).toEqual(replays.map(() => ({ dispatchId: first.dispatchId, status: 'queued', replayed: true })));
    // The allowance of 3 is still 3 less the one real send: two more new sends go through, the next is 429.
    await send(command(ws, { now, to: '081234567891' }));
    await send(command(ws, { now, to: '081234567892' }));
    expect((await rejection(send(command(ws, { now, to: '081234567893' }))))?.code).toBe('rate_limited');
    expect(await send(command(ws, { idempotencyKey, now }))).toEqual({ dispatchId: first.dispatchId, status: 'queued', replayed: true });

    await saveTemplate(ws, { ...template, status: 'PAUSED' }, env.table);
    const later = new Date(now.getTime() + 120_000); // past the template cache and into a new minute
    expect((await rejection(send(command(ws, { now: later, to: '081234567894' }))))?.code).toBe('template_not_ready');
    expect(await send(command(ws, { idempotencyKey, now: later }))).toEqual({ dispatchId: first.dispatchId, status: 'queued', replayed: true });
    expect(await itemsOf(ws, 'dispatch')).toHaveLength(3);
  });

  it('answers 409 to a key whose request stopped before marking it complete, then replays its answer once the in-flight window is over', async () => {
    const ws = await workspace();
    const now = new Date('2026-04-01T10:00:15.000Z');
    const idempotencyKey = `order-${randomUUID()}`;
    const first = await send(command(ws, { idempotencyKey, now }));
    // As a request stopped (a lost answer, a dead process) between its transaction and the mark.
    await env.table.db.send(new UpdateCommand({ TableName: env.table.tableName, Key: keys.idempotency(ws, idempotencyKey), UpdateExpression: 'SET #state = :inFlight', ExpressionAttributeNames: { '#state': 'state' }, ExpressionAttributeValues: { ':inFlight': 'in_flight' } }));

    const at = (ms: number) => new Date(now.getTime() + ms);
    expect((await rejection(send(command(ws, { idempotencyKey, now: at(IN_FLIGHT_WINDOW_MS) }))))?.code).toBe('idempotency_conflict');
    expect(await send(command(ws, { idempotencyKey, now: at(IN_FLIGHT_WINDOW_MS + 1) }))).toEqual({ dispatchId: first.dispatchId, status: 'queued', replayed: true });
    expect(await itemsOf(ws, 'dispatch')).toHaveLength(1);
  });

  it('answers 502 when the queue refuses, fails the dispatch, releases the key and the daily marker, and a retry succeeds', async () => {
    const ws = await workspace({ dedupe: 'wib-day' });
    const idempotencyKey = 'retry-me';
    const broken = { sqs: env.queues.sqs, queueUrl: `${env.queues.queueUrl}-does-not-exist` };

    const error = await rejection(send(command(ws, { idempotencyKey }), broken));
    expect([error?.status, error?.code]).toEqual([502, 'upstream_unavailable']);
    const [failed] = await itemsOf(ws, 'dispatch');
    expect(failed).toMatchObject({ status: 'failed', failureCode: 'enqueue_failed' });
    expect(await itemsOf(ws, 'idempotencyRecord')).toEqual([]);

    const retried = await send(command(ws, { idempotencyKey }));
    expect(retried.replayed).toBe(false);
    expect(retried.dispatchId).not.toBe(failed!.dispatchId);
    expect(await env.queues.receiveAll()).toEqual([{ dispatchId: retried.dispatchId, workspaceId: ws }]);
  });

  it('keeps a send a duplicate was refused for (409, "already sent today"): its queue failing then leaves it queued for the reconciler, not released as never sent', async () => {
    const ws = await workspace({ dedupe: 'wib-day' });
    let entered!: () => void;
    const inQueue = new Promise<void>((resolve) => (entered = resolve));
    let fail!: () => void;
    const failing = new Promise<void>((resolve) => (fail = resolve));
    // The first send's queue call hangs, then fails; meanwhile its caller, timed out, sends again.
    const stalling: QueueTarget = {
      queueUrl: env.queues.queueUrl,
      sqs: {
        send: async () => {
          entered();
          await failing;
          throw Object.assign(new Error('The specified queue does not exist.'), { name: 'QueueDoesNotExist', $metadata: { httpStatusCode: 400 } });
        },
      } as unknown as QueueTarget['sqs'],
    };

    const first = send(command(ws), stalling);
    await inQueue;
    const duplicate = await rejection(send(command(ws)));
    fail();
    const accepted = await first;

    // The duplicate was told the message is sent today, so it must be: the first answers 202 and
    // its dispatch stays queued, with the day's marker, for the reconciler to queue.
    expect([duplicate?.status, duplicate?.code]).toEqual([409, 'duplicate_send']);
    expect(accepted).toMatchObject({ status: 'queued', replayed: false });
    expect(await getDispatch(ws, accepted.dispatchId, env.table)).toMatchObject({ status: 'queued' });
    expect((await env.table.scanAll()).filter((item) => item.entity === 'dailySend' && item.dispatchId === accepted.dispatchId)).toEqual([expect.objectContaining({ duplicateRefused: true })]);
    expect(await env.queues.receiveAll()).toEqual([]);
    // The file's other queued dispatches are the reconciler's too: this workspace's is the one asked about.
    await reconcile(new Date(Date.now() + QUEUED_GRACE_MS + 1_000), env.table, env.queues);
    expect(((await env.queues.receiveAll()) as { workspaceId: string }[]).filter((message) => message.workspaceId === ws)).toEqual([{ dispatchId: accepted.dispatchId, workspaceId: ws }]);
  });

  // DynamoDB refuses an UpdateItem on an item a transaction in flight writes (another duplicate's claim, or the first
  // send's release), and the SDK does not retry it: the duplicate's mark met one and escaped as a 500.
  it('answers a duplicate whose mark of the day’s send meets a transaction in flight 409 duplicate_send, once marked', async () => {
    const ws = await workspace({ dedupe: 'wib-day' });
    const first = await send(command(ws));
    let refused = 0;
    const name = `marker-conflict-${randomUUID()}`;
    const oneConflict: BuildMiddleware<object, object> = (next, context) => async (args) => {
      const input = args.input as { Key?: { pk?: { S?: string } } };
      if (refused === 0 && context.commandName === 'UpdateItemCommand' && input.Key?.pk?.S?.startsWith('DEDUPE#')) {
        refused++;
        throw new TransactionConflictException({ message: 'Transaction is ongoing for the item', $metadata: { httpStatusCode: 400 } });
      }
      return next(args);
    };
    env.table.db.middlewareStack.add(oneConflict as never, { step: 'build', name });
    try {
      const duplicate = await rejection(send(command(ws)));
      expect([duplicate?.status, duplicate?.code, refused]).toEqual([409, 'duplicate_send', 1]);
    } finally {
      env.table.db.middlewareStack.remove(name);
    }
    expect((await env.table.scanAll()).filter((item) => item.entity === 'dailySend' && item.dispatchId === first.dispatchId)).toEqual([expect.objectContaining({ duplicateRefused: true })]);
  });

  it('lets a duplicate refused while the first send still had the day go through once that send gave the day back', async () => {
    const ws = await workspace({ dedupe: 'wib-day' });
    const broken = { sqs: env.queues.sqs, queueUrl: `${env.queues.queueUrl}-does-not-exist` };
    expect((await rejection(send(command(ws), broken)))?.status).toBe(502);
    // The marker went with the first send's 502: the next send is not a duplicate.
    await expect(send(command(ws))).resolves.toMatchObject({ status: 'queued' });
    expect((await rejection(send(command(ws))))?.code).toBe('duplicate_send');
  });

  it('answers 202, not "nothing will be sent", when the queue took the message but its answer was lost and a consumer has claimed it', async () => {
    const ws = await workspace({ dedupe: 'wib-day' });
    const idempotencyKey = 'answer-lost';
    const claimed: string[] = [];
    // SQS keeps the message; before the SDK's last try fails, a consumer claims and sends it.
    const tookItAnswerLost: QueueTarget = {
      queueUrl: env.queues.queueUrl,
      sqs: {
        send: async (sendMessage: Parameters<typeof env.queues.sqs.send>[0]) => {
          await env.queues.sqs.send(sendMessage);
          for (const message of (await env.queues.receiveAll()) as { dispatchId: string; workspaceId: string }[]) {
            claimed.push(await deliverDispatch({ ...message, receiveCount: 1, maxReceives: 5 }, { providerFor: () => acceptingProvider, store: env.table }));
          }
          throw Object.assign(new Error('socket hang up'), { name: 'Error', code: 'ECONNRESET', $metadata: {} });
        },
      } as unknown as QueueTarget['sqs'],
    };

    const result = await send(command(ws, { idempotencyKey }), tookItAnswerLost);
    expect([result.status, result.replayed, claimed]).toEqual(['queued', false, ['sent']]);
    expect(await getDispatch(ws, result.dispatchId, env.table)).toMatchObject({ status: 'sent' });
    // The key holds the answer, so a retry is a replay, never a second message.
    expect(await send(command(ws, { idempotencyKey }))).toEqual({ dispatchId: result.dispatchId, status: 'queued', replayed: true });
    expect(await itemsOf(ws, 'dispatch')).toHaveLength(1);
  });

  it('answers 429 with the seconds to the next minute once the workspace’s per-minute allowance is spent', async () => {
    const ws = await workspace({ sendsPerMinute: 2 });
    const now = new Date('2026-04-01T10:00:15.000Z');
    await send(command(ws, { now }));
    await send(command(ws, { now }));
    const limited = await rejection(send(command(ws, { now })));
    expect([limited?.status, limited?.headers]).toEqual([429, { 'Retry-After': '45' }]);
    await expect(send(command(ws, { now: new Date('2026-04-01T10:01:00.000Z') }))).resolves.toMatchObject({ status: 'queued' });
    expect(await itemsOf(ws, 'dispatch')).toHaveLength(3);
  });

  it('admits exactly sendsPerMinute sends in a minute while leasing the allowance in blocks', async () => {
    const ws = await workspace({ sendsPerMinute: 45 });
    const now = new Date('2026-04-01T11:00:00.000Z');
    const outcomes = [];
    for (let i = 0; i < 47; i++) outcomes.push(await send(command(ws, { to: `0812345${String(i).padStart(5, '0')}`, now })).then(() => 'sent', (error: AppError) => error.code));
    expect(outcomes.filter((outcome) => outcome === 'sent')).toHaveLength(45);
    expect(outcomes.slice(45)).toEqual(['rate_limited', 'rate_limited']);
    const [counter] = (await env.table.scanAll()).filter((item) => item.pk === keys.sendRate(ws, Math.floor(now.getTime() / 60_000)).pk);
    expect(counter).toMatchObject({ count: 45 });
  });

  it('allows one send of a template to a number per WIB day when the workspace asks for it', async () => {
    const ws = await workspace({ dedupe: 'wib-day' });
    await send(command(ws, { now: new Date('2026-04-01T16:59:59.000Z') }));
    const duplicate = await rejection(send(command(ws, { to: '+62 812-3456-7890', now: new Date('2026-04-01T10:00:00.000Z') })));
    expect([duplicate?.status, duplicate?.code]).toEqual([409, 'duplicate_send']);
    // 17:00Z is the next WIB day; another number is another send.
    await expect(send(command(ws, { now: new Date('2026-04-01T17:00:00.000Z') }))).resolves.toMatchObject({ status: 'queued' });
    await expect(send(command(ws, { to: '081299998888', now: new Date('2026-04-01T10:00:00.000Z') }))).resolves.toMatchObject({ status: 'queued' });
  });

  it('keeps every one of several concurrent sends to one conversation', async () => {
    const ws = await workspace();
    const results = await Promise.all(Array.from({ length: 5 }, () => send(command(ws))));
    expect(new Set(results.map((result) => result.dispatchId)).size).toBe(5);
    const [conversation] = await itemsOf(ws, 'conversation');
    expect(conversation).toMatchObject({ messageCount: 5, outboundCount: 5 });
  });

  it('keeps them too when DynamoDB cancels their transactions for conflicting on the conversation: none is refused, and none answers idempotency_conflict without a key', async () => {
    // DynamoDB Local runs transactions one at a time; DynamoDB cancels one that touches an item
    // another is writing (test/support/transaction-conflicts.ts). An integration sending two
    // templates to one customer at once meets it on their conversation item.
    const SENDS = 12;
    const ws = await workspace();
    const conflicts = emulateTransactionConflicts(env.table.db);
    let outcomes: unknown[];
    try {
      outcomes = await Promise.all(Array.from({ length: SENDS }, () => send(command(ws)).catch((error: unknown) => error)));
    } finally {
      conflicts.remove();
    }
    expect(conflicts.stats.cancelled).toBeGreaterThan(0);
    expect(outcomes.filter((outcome) => outcome instanceof Error)).toEqual([]);
    expect(await itemsOf(ws, 'dispatch')).toHaveLength(SENDS);
    const [conversation] = await itemsOf(ws, 'conversation');
    expect(conversation).toMatchObject({ messageCount: SENDS, outboundCount: SENDS });
    expect(await env.queues.receiveAll()).toHaveLength(SENDS);
  });

  it('answers 503 (retry), not 409, when the conversation stays held by another transaction, and writes nothing', async () => {
    const ws = await workspace();
    // No pauses between retries: the conversation stays held by a transaction that never ends.
    jest.spyOn(Math, 'random').mockReturnValue(0);
    const conflicts = emulateTransactionConflicts(env.table.db, { heldForever: (pk) => pk.startsWith(`WS#${ws}#CONV#`) });
    let error: AppError | undefined;
    try {
      error = await rejection(send(command(ws)));
    } finally {
      conflicts.remove();
      jest.restoreAllMocks();
    }
    expect([error?.status, error?.code, error?.headers]).toEqual([503, 'service_unavailable', { 'Retry-After': '1' }]);
    expect(conflicts.stats.cancelled).toBe(CONFLICT_RETRIES + 1);
    expect(await itemsOf(ws, 'dispatch')).toEqual([]);
    expect(await env.queues.receiveAll()).toEqual([]);
  });
});
