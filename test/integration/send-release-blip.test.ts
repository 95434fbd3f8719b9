import { randomUUID } from 'node:crypto';
import { TransactWriteCommand } from '@aws-sdk/lib-dynamodb';
import { reconcile, QUEUED_GRACE_MS } from '../../lambdas/domain/delivery/reconcile';
import { getDispatch } from '../../lambdas/domain/messages/dispatch-repository';
import { sendTemplateMessage } from '../../lambdas/domain/messages/send-message';
import { AppError } from '../../lambdas/shared/errors';
import type { Store } from '../../lambdas/shared/store';
import { useTableAndQueues } from '../support/sqs';
import { sendCommand, sendingWorkspace } from '../support/send-commands';

/**
 * A send whose queue refused it gives its writes back in one more transaction (releaseSend). The
 * table may drop that transaction's answer as it may drop the send's (decision 30): the release is
 * asked again until it answers, and a release it cannot write leaves a dispatch the reconciler will
 * queue, so the caller is told it was accepted, never "retry", which would send it twice.
 */
const env = useTableAndQueues();
const refusingQueue = () => ({ sqs: env.queues.sqs, queueUrl: `${env.queues.queueUrl}-does-not-exist` });
const socketHangUp = () => Object.assign(new Error('socket hang up'), { name: 'Error', code: 'ECONNRESET', $metadata: {} });

/** The table, with TransactWriteItems number `n` and after answered by `fault` (before or after the write is applied). */
function faultyTransactions(from: number, fault: 'dropped' | 'answerLost', times = 1): Store {
  let transactions = 0;
  const db = new Proxy(env.table.db, {
    get(target, prop) {
      if (prop !== 'send') return Reflect.get(target, prop);
      return async (command: unknown) => {
        const n = command instanceof TransactWriteCommand ? ++transactions : 0;
        if (n < from || n >= from + times) return target.send(command as never);
        if (fault === 'answerLost') await target.send(command as never);
        throw socketHangUp();
      };
    },
  });
  return { db, tableName: env.table.tableName };
}

const workspace = () => sendingWorkspace(env.table);
const command = (ws: string, key?: string) => sendCommand(ws, key ? { idempotencyKey: key } : {});
const outcome = (promise: Promise<unknown>) => promise.then((accepted) => accepted, (error: unknown) => (error instanceof AppError ? error.code : String(error)));

afterEach(() => env.queues.receiveAll());

it('a release the table keeps dropping answers 202: the reconciler queues the dispatch, and the customer gets it once', async () => {
  const ws = await workspace();
  // The 1st transaction (the send) commits; the queue refuses; every release meets a dropped connection.
  const first = await outcome(sendTemplateMessage(command(ws), { store: faultyTransactions(2, 'dropped', 1_000), queue: refusingQueue() }));
  expect(first).toMatchObject({ status: 'queued', replayed: false });
  const { dispatchId } = first as { dispatchId: string };
  expect(await getDispatch(ws, dispatchId, env.table)).toMatchObject({ status: 'queued' });

  await reconcile(new Date(Date.now() + QUEUED_GRACE_MS + 5_000), env.table, env.queues);
  expect(((await env.queues.receiveAll()) as { dispatchId: string }[]).map((message) => message.dispatchId)).toEqual([dispatchId]);
});

it('a release dropped once is asked again, and the caller told 502 as on any refusal', async () => {
  const ws = await workspace();
  const answer = await outcome(sendTemplateMessage(command(ws, `order-${randomUUID()}`), { store: faultyTransactions(2, 'dropped'), queue: refusingQueue() }));
  expect(answer).toBe('upstream_unavailable');
  const dispatches = (await env.table.scanAll()).filter((item) => item.workspaceId === ws && item.entity === 'dispatch');
  expect(dispatches).toEqual([expect.objectContaining({ status: 'failed', failureCode: 'enqueue_failed' })]);
});

it('a release applied whose answer was lost is known for one on the retry, not for a consumer’s claim: 502, and the key is free again', async () => {
  const ws = await workspace();
  const key = `order-${randomUUID()}`;
  const answer = await outcome(sendTemplateMessage(command(ws, key), { store: faultyTransactions(2, 'answerLost'), queue: refusingQueue() }));
  expect(answer).toBe('upstream_unavailable');
  // The documented retry with the same key is a new send, accepted.
  expect(await outcome(sendTemplateMessage(command(ws, key), { store: env.table, queue: env.queues }))).toMatchObject({ status: 'queued', replayed: false });
});
