import { randomUUID } from 'node:crypto';
import { sendTemplateMessage, type SendTemplateMessage } from '../../lambdas/domain/messages/send-message';
import { AppError } from '../../lambdas/shared/errors';
import type { QueueTarget } from '../../lambdas/shared/queue';
import { keys } from '../../lambdas/shared/table';
import { useTableAndQueues } from '../support/sqs';
import { emulateTransactionConflicts } from '../support/transaction-conflicts';
import { sendCommand, sendingWorkspace } from '../support/send-commands';

/**
 * docs/api.md, Rate limits: `sendsPerMinute` caps accepted sends per minute; Idempotency: a replay
 * never counts against the send rate; Send a message: after a 502 or 503, retrying is safe. A send
 * refused after it took its allowance (a duplicate, a replay, the queue or the table away) gives it
 * back, so the retry the answer asks for is not refused 429 for the refusal itself.
 */
const env = useTableAndQueues();

const workspace = (settings: Parameters<typeof sendingWorkspace>[1] = {}) => sendingWorkspace(env.table, settings);
const command = sendCommand;
const send = (cmd: SendTemplateMessage, queue: QueueTarget = env.queues) => sendTemplateMessage(cmd, { store: env.table, queue });
const outcome = (promise: Promise<unknown>) => promise.then(() => 'accepted', (error: unknown) => (error instanceof AppError ? error.code : String(error)));
const counted = async (ws: string, now: Date) => (await env.table.scanAll()).find((item) => item.pk === keys.sendRate(ws, Math.floor(now.getTime() / 60_000)).pk)?.count;

afterEach(async () => {
  await env.queues.receiveAll();
});

describe('a refused send gives its allowance back', () => {
  it('a 409 duplicate_send (dedupe wib-day) leaves the minute to accepted sends', async () => {
    const ws = await workspace({ sendsPerMinute: 2, dedupe: 'wib-day' });
    const now = new Date('2026-04-01T10:00:15.000Z');

    expect(await outcome(send(command(ws, { now })))).toBe('accepted');
    expect(await outcome(send(command(ws, { now })))).toBe('duplicate_send');
    expect(await outcome(send(command(ws, { now, to: '081234567891' })))).toBe('accepted');
    expect(await counted(ws, now)).toBe(2);
  });

  it('a 502 (the queue refused) leaves it, so retrying the same request is accepted', async () => {
    const ws = await workspace({ sendsPerMinute: 1 });
    const now = new Date('2026-04-01T10:05:15.000Z');
    const idempotencyKey = `order-${randomUUID()}`;
    const broken = { sqs: env.queues.sqs, queueUrl: `${env.queues.queueUrl}-does-not-exist` };

    expect(await outcome(send(command(ws, { now, idempotencyKey }), broken))).toBe('upstream_unavailable');
    expect(await outcome(send(command(ws, { now, idempotencyKey })))).toBe('accepted');
  });

  it('concurrent retries of one keyed request count once against the rate', async () => {
    const ws = await workspace({ sendsPerMinute: 3 });
    const now = new Date('2026-04-01T10:10:15.000Z');
    const idempotencyKey = `order-${randomUUID()}`;

    const outcomes = await Promise.all([1, 2, 3].map(() => outcome(send(command(ws, { now, idempotencyKey })))));
    expect(outcomes.filter((o) => o === 'accepted').length).toBeGreaterThanOrEqual(1);
    expect((await env.table.scanAll()).filter((item) => item.workspaceId === ws && item.entity === 'dispatch')).toHaveLength(1);

    expect(await outcome(send(command(ws, { now, to: '081234567891' })))).toBe('accepted');
    expect(await outcome(send(command(ws, { now, to: '081234567892' })))).toBe('accepted');
    expect(await counted(ws, now)).toBe(3);
  });

  it('a 503 (the conversation stayed held, nothing written) leaves it, so the documented retry is accepted', async () => {
    const ws = await workspace({ sendsPerMinute: 1 });
    const now = new Date('2026-04-01T10:15:15.000Z');
    jest.spyOn(Math, 'random').mockReturnValue(0);
    const conflicts = emulateTransactionConflicts(env.table.db, { heldForever: (pk) => pk.startsWith(`WS#${ws}#CONV#`) });
    let first: string;
    try {
      first = await outcome(send(command(ws, { now })));
    } finally {
      conflicts.remove();
      jest.restoreAllMocks();
    }
    expect(first).toBe('service_unavailable');
    expect((await env.table.scanAll()).filter((item) => item.workspaceId === ws && item.entity === 'dispatch')).toEqual([]);
    expect(await outcome(send(command(ws, { now })))).toBe('accepted');
  });
});
