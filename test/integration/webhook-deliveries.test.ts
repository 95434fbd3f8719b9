import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { randomUUID } from 'node:crypto';
import { createServer, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { deliverEvent, type EventDeliveryDependencies } from '../../lambdas/domain/webhooks/deliver-event';
import { deliverEventRecord } from '../../lambdas/handlers/deliver-webhook-event';
import type * as EndpointHealth from '../../lambdas/domain/webhooks/endpoint-health';
import { clearEventGateCache, writesEvents } from '../../lambdas/domain/webhooks/event-gate';
import { publishStreamEvents } from '../../lambdas/domain/webhooks/publish-events';
import { MISSED_EVENTS_KEPT_MS } from '../../lambdas/domain/webhooks/missed-events';
import { listEventDeliveries, resendEvent, resendEventsSince, sendTestEvent } from '../../lambdas/domain/webhooks/event-deliveries';
import { eventDeliveryMessageSchema, type EventDeliveryMessage } from '../../lambdas/domain/webhooks/event-queue';
import { attemptRecordUpdate } from '../../lambdas/domain/webhooks/webhook-delivery';
import { createWebhookEndpoint, disableWebhookEndpoint, endpointReadsOfBatch, getWebhookEndpoint, updateWebhookEndpoint, type EndpointReader } from '../../lambdas/domain/webhooks/webhook-endpoint-repository';
import type { WebhookEventType } from '../../lambdas/domain/webhooks/event-types';
import { newEventId } from '../../lambdas/domain/webhooks/webhook-event';
import type { AppError } from '../../lambdas/shared/errors';
import { writeOne } from '../../lambdas/shared/writes';
import { resetContainerCaches } from '../../lib/testing';
import { sqsEvent } from '../../lib/testing/sqs-events';
import { useTableAndQueues } from '../support/sqs';

const env = useTableAndQueues();
// Whole hours before the run, not a fixed date: the list and the resends read the records' 14 days
// (DELIVERY_RECORD_DAYS) by the real clock, so records at a fixed date fall out of them one day.
const T0 = new Date((Math.floor(Date.now() / 3_600_000) - 2) * 3_600_000);
const at = (minutes: number) => new Date(T0.getTime() + minutes * 60_000);
const rejection = (promise: Promise<unknown>) => promise.then(() => undefined, (error: unknown) => error as AppError);

async function endpointWithDeliveries(count: number) {
  const ws = `ws-${randomUUID().slice(0, 8)}`;
  const endpoint = await createWebhookEndpoint({ workspaceId: ws, url: 'https://hooks.example.com/in', events: null, description: null }, T0, env.table);
  const eventIds: string[] = [];
  for (let i = 0; i < count; i++) {
    const eventId = newEventId(at(i));
    eventIds.push(eventId);
    const payload = JSON.stringify({ id: eventId, type: 'message.received', timestamp: at(i).toISOString(), data: { n: i } });
    await writeOne(
      env.table,
      attemptRecordUpdate({ workspaceId: ws, endpointId: endpoint.id, eventId, type: 'message.received', payload, attempt: 1, attemptedAt: at(i), statusCode: 500, error: null, state: 'retrying', nextAttemptAt: at(i + 1) }),
    );
  }
  return { ws, endpointId: endpoint.id, eventIds };
}
const queued = async () => (await env.queues.receiveAll()).map((body) => eventDeliveryMessageSchema.parse(body));

/**
 * A queue that notes each message sent to it (and its attempt), as it is asked (a next attempt is
 * delayed, so not yet to be received), and sends it on to a queue this file's other tests do not
 * read, where it is not in their way; while `state.refusing`, it refuses every send, as SQS out of
 * service does.
 */
function countingQueue() {
  const messages: EventDeliveryMessage[] = [];
  const attempts: number[] = [];
  const state = { refusing: false };
  const queue = {
    queueUrl: env.queues.dlqUrl,
    sqs: {
      send: (command: { input: { Entries?: { MessageBody?: string }[]; MessageBody?: string } }) => {
        if (state.refusing) return Promise.reject(Object.assign(new Error('Service unavailable'), { name: 'ServiceUnavailable', $metadata: { httpStatusCode: 503 } }));
        for (const body of [command.input.MessageBody, ...(command.input.Entries ?? []).map((entry) => entry.MessageBody)]) {
          if (!body) continue;
          messages.push(eventDeliveryMessageSchema.parse(JSON.parse(body)));
          attempts.push(messages.at(-1)!.attempt);
        }
        return env.queues.sqs.send(command as never);
      },
    },
  } as unknown as typeof env.queues;
  return { queue, attempts, messages, state };
}

/**
 * An integration's receiver that answers every POST with `answer` (500 until a test changes it), a
 * workspace's endpoint at it, and an event for it as its first attempt queues it.
 */
async function receiverWithEvent() {
  const receiver = { posts: 0, answer: 500 };
  const server = createServer((request, response) => {
    receiver.posts += 1;
    request.resume().on('end', () => response.writeHead(receiver.answer).end());
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const ws = `ws-${randomUUID().slice(0, 8)}`;
  const endpoint = await createWebhookEndpoint({ workspaceId: ws, url: `http://localhost:${(server.address() as AddressInfo).port}/in`, events: null, description: null }, T0, env.table);
  const eventId = newEventId(T0);
  const message: EventDeliveryMessage = { workspaceId: ws, endpointId: endpoint.id, eventId, type: 'message.received', payload: JSON.stringify({ id: eventId, type: 'message.received', timestamp: T0.toISOString(), data: {} }), attempt: 1 };
  const reachable = { resolve: () => Promise.resolve([{ address: '127.0.0.1', family: 4 as const }]), allowLocal: true };
  return { receiver, ws, endpointId: endpoint.id, message, reachable, close: () => new Promise((resolve) => server.close(resolve)) };
}

describe('webhook deliveries against DynamoDB Local', () => {
  it('lists an endpoint’s deliveries newest first, a signed cursor page at a time', async () => {
    const { ws, endpointId, eventIds } = await endpointWithDeliveries(3);

    const first = await listEventDeliveries(ws, endpointId, { limit: 2 }, env.table);
    expect(first.items.map((item) => item.eventId)).toEqual([eventIds[2], eventIds[1]]);
    expect(first.items[0]).toEqual({
      eventId: eventIds[2],
      type: 'message.received',
      state: 'retrying',
      attempts: 1,
      lastAttemptAt: at(2).toISOString(),
      lastStatusCode: 500,
      lastError: null,
      nextAttemptAt: at(3).toISOString(),
    });
    const second = await listEventDeliveries(ws, endpointId, { limit: 2, cursor: first.nextCursor! }, env.table);
    expect(second.items.map((item) => item.eventId)).toEqual([eventIds[0]]);
    expect(second.nextCursor).toBeNull();
    // A cursor is bound to its endpoint.
    const other = await endpointWithDeliveries(0);
    expect(await rejection(listEventDeliveries(other.ws, other.endpointId, { limit: 2, cursor: first.nextCursor! }, env.table))).toMatchObject({ code: 'validation_failed' });
  });

  // docs/api.md#webhook-events: an endpoint receives only the types its `events` names. An
  // integration that narrows them (say, to stop a type its receiver fails on) gets no retry of one
  // queued before: the retry is given up without a POST.
  it('gives up, without a POST, a retry of a type the endpoint stopped subscribing to', async () => {
    const { ws, endpointId, eventIds } = await endpointWithDeliveries(1);
    await updateWebhookEndpoint(ws, endpointId, { events: ['message.status.updated'] }, at(1), env.table);
    const resolved: string[] = [];
    const payload = JSON.stringify({ id: eventIds[0], type: 'message.received', timestamp: T0.toISOString(), data: { n: 0 } });

    const outcome = await deliverEvent(
      { workspaceId: ws, endpointId, eventId: eventIds[0]!, type: 'message.received', payload, attempt: 2, dueAt: at(1).toISOString(), failingSince: T0.toISOString() },
      { store: env.table, queue: env.queues, now: () => at(2), urlRules: { resolve: (host) => (resolved.push(host), Promise.resolve([{ address: '93.184.215.14', family: 4 }])), allowLocal: false } },
    );

    expect([outcome, resolved]).toEqual(['skipped', []]);
    const { items } = await listEventDeliveries(ws, endpointId, { limit: 20 }, env.table);
    expect(items).toEqual([
      // Given up as a disabled endpoint's retry is: its last answer kept.
      { eventId: eventIds[0], type: 'message.received', state: 'failed', attempts: 1, lastAttemptAt: at(0).toISOString(), lastStatusCode: 500, lastError: null, nextAttemptAt: null },
    ]);
    expect(await queued()).toEqual([]);
  });

  it('resends only the types the endpoint takes now: one event of another type is 422, and "since" leaves such events out', async () => {
    const { ws, endpointId, eventIds } = await endpointWithDeliveries(2);
    await updateWebhookEndpoint(ws, endpointId, { events: ['message.status.updated'] }, at(5), env.table);

    expect(await rejection(resendEvent(ws, endpointId, eventIds[0]!, env.table, env.queues))).toMatchObject({
      status: 422,
      code: 'validation_failed',
      message: 'The endpoint no longer takes message.received events; add the type to its events (PATCH) to resend it',
    });
    expect(await resendEventsSince(ws, endpointId, T0, env.table, env.queues)).toEqual({ resent: 0, nextSince: null });
    expect(await queued()).toEqual([]);
  });

  it('answers another workspace’s endpoint as a missing one', async () => {
    const { endpointId, eventIds } = await endpointWithDeliveries(1);
    for (const attempt of [
      () => listEventDeliveries('ws-other', endpointId, { limit: 2 }, env.table),
      () => resendEvent('ws-other', endpointId, eventIds[0]!, env.table, env.queues),
      () => resendEventsSince('ws-other', endpointId, T0, env.table, env.queues),
      () => sendTestEvent('ws-other', endpointId, T0, env.table, env.queues),
    ]) {
      expect(await rejection(attempt())).toMatchObject({ code: 'not_found', message: 'Webhook endpoint was not found' });
    }
    expect(await queued()).toEqual([]);
  });

  it('resends one event, and every event since a time, from a first attempt with the same body', async () => {
    const { ws, endpointId, eventIds } = await endpointWithDeliveries(3);

    expect(await resendEvent(ws, endpointId, eventIds[0]!, env.table, env.queues)).toEqual({ eventId: eventIds[0] });
    expect(await queued()).toEqual([expect.objectContaining({ eventId: eventIds[0], attempt: 1, payload: expect.stringContaining('"n":0') })]);

    expect(await resendEventsSince(ws, endpointId, at(1), env.table, env.queues)).toEqual({ resent: 2, nextSince: null });
    expect((await queued()).map((message) => message.eventId)).toEqual([eventIds[1], eventIds[2]]);

    expect(await rejection(resendEvent(ws, endpointId, newEventId(T0), env.table, env.queues))).toMatchObject({ code: 'not_found' });
  });

  // The consumer skipped the retry and left the record `retrying`, with a next attempt in the past that never came.
  it('keeps a newer attempt’s result when an older, slower one ends after it (a retry a resend overtook), and counts both', async () => {
    let hung: ServerResponse | undefined;
    let posts = 0;
    // The first POST hangs until its attempt times out; the next is answered 204.
    const server = createServer((request, response) => {
      posts += 1;
      request.resume();
      if (posts === 1) hung = response;
      else request.on('end', () => response.writeHead(204).end());
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    try {
      const ws = `ws-${randomUUID().slice(0, 8)}`;
      const endpoint = await createWebhookEndpoint({ workspaceId: ws, url: `http://localhost:${(server.address() as AddressInfo).port}/in`, events: null, description: null }, T0, env.table);
      const eventId = newEventId(T0);
      const message = { workspaceId: ws, endpointId: endpoint.id, eventId, type: 'message.received', payload: JSON.stringify({ id: eventId, type: 'message.received', timestamp: T0.toISOString(), data: {} }) };
      const reachable = { resolve: () => Promise.resolve([{ address: '127.0.0.1', family: 4 as const }]), allowLocal: true };
      // What each attempt queues (a next attempt is delayed, so not yet to be received).
      const { queue: counting, attempts: queuedAttempts } = countingQueue();
      const deps = (now: Date) => ({ store: env.table, queue: counting, now: () => now, urlRules: reachable, timeoutMs: 1_500 });

      const older = deliverEvent({ ...message, attempt: 2, failingSince: T0.toISOString() }, deps(at(1)));
      while (posts < 1) await new Promise((resolve) => setTimeout(resolve, 20));
      expect(await deliverEvent({ ...message, attempt: 1, round: 1 }, deps(at(2)))).toBe('delivered');
      // The delivered resend stands: the older attempt queues no retry of a delivered event.
      expect(await older).toBe('overtaken');
      expect(queuedAttempts).toEqual([]);
      hung?.destroy();

      const { items } = await listEventDeliveries(ws, endpoint.id, { limit: 20 }, env.table);
      expect(items).toEqual([expect.objectContaining({ eventId, attempts: 2, state: 'delivered', lastAttemptAt: at(2).toISOString(), lastStatusCode: 204, lastError: null, nextAttemptAt: null })]);
    } finally {
      await new Promise((resolve) => server.close(resolve));
    }
  });

  // docs/api.md#webhook-events: each failed attempt is followed by one next attempt, on the schedule,
  // with the same webhook-id. SQS hands a message out again when the consumer's invocation dies (a
  // timeout, a crash) after the next attempt was queued but before the batch's answer deleted it:
  // attempt 1 came back the visibility timeout (180 s) later, POSTed again after the event was
  // delivered, queued a second attempt 2, and the list said `retrying` again.
  it('does not fork an event’s retry chain when a failed attempt’s message comes back after its next attempt was queued', async () => {
    const { receiver, ws, endpointId, message: first, reachable, close } = await receiverWithEvent();
    try {
      const { queue: counting, messages: sent } = countingQueue();
      const deps = (now: Date) => ({ store: env.table, queue: counting, now: () => now, urlRules: reachable, timeoutMs: 1_500 });
      const seconds = (s: number) => at(s / 60);

      // Attempt 1 fails; attempt 2 is queued (due 5 s later). The invocation then dies before its batch answer.
      expect(await deliverEvent(first, deps(seconds(0)))).toBe('retrying');
      // Attempt 2, 5 s on, fails too; attempt 3 is queued (due 30 s later).
      expect(await deliverEvent(sent[0]!, deps(seconds(5)))).toBe('retrying');
      // Attempt 3 is answered 204: the integration has the event.
      receiver.answer = 204;
      expect(await deliverEvent(sent[1]!, deps(seconds(35)))).toBe('delivered');
      // 180 s after it was first received, attempt 1's message, never deleted, comes back.
      receiver.answer = 500;
      await deliverEvent(first, deps(seconds(180)));

      // One chain: attempts 2 and 3 queued once each, and nothing POSTed after the 204.
      const { items } = await listEventDeliveries(ws, endpointId, { limit: 20 }, env.table);
      expect({ queuedAttempts: sent.map((message) => message.attempt), posts: receiver.posts, state: items[0]?.state }).toEqual({ queuedAttempts: [2, 3], posts: 3, state: 'delivered' });
    } finally {
      await close();
    }
  });

  // Attempt 4 fails and queues attempt 5, due 600 s on; SQS hands attempt 4 out again after the
  // visibility timeout, and it queues attempt 5 again under an id of its own. Due at the same
  // instant as the first, the two were received in one batch and posted at once, each before the
  // other's record: attempt 5 went twice (the skeptic review of decision 209).
  it('makes a re-queued next attempt due after the first has been made, so the two are never posted at once', async () => {
    const { receiver, message, reachable, close } = await receiverWithEvent();
    try {
      const fourth: EventDeliveryMessage = { ...message, attempt: 4, failingSince: T0.toISOString() };
      const { queue: counting, messages: sent } = countingQueue();
      const deps = (now: Date) => ({ store: env.table, queue: counting, now: () => now, urlRules: reachable, timeoutMs: 1_500 });
      const seconds = (s: number) => at(s / 60);

      expect(await deliverEvent(fourth, deps(seconds(0)))).toBe('retrying');
      expect(await deliverEvent(fourth, deps(seconds(180)))).toBe('retrying');
      const [first, copy] = sent.filter((message) => message.attempt === 5);
      expect(Date.parse(copy!.dueAt!) - Date.parse(first!.dueAt!)).toBeGreaterThan(1_500);

      // Both received at once when the first is due (a consumer behind): the copy is not due yet.
      expect(await Promise.all([deliverEvent(first!, deps(seconds(600))), deliverEvent(copy!, deps(seconds(600)))])).toEqual(['retrying', 'waiting']);
      // When it is due, the first has been made and recorded.
      expect(await deliverEvent(copy!, deps(new Date(copy!.dueAt!)))).toBe('replayed');
      expect({ posts: receiver.posts, sixths: sent.filter((queued) => queued.attempt === 6).length }).toEqual({ posts: 2, sixths: 1 });
    } finally {
      await close();
    }
  });

  it('queues a failed attempt’s next attempt once, even when its record’s write failed and the message came back', async () => {
    let posts = 0;
    const server = createServer((request, response) => {
      posts += 1;
      request.resume().on('end', () => response.writeHead(500).end());
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    try {
      const ws = `ws-${randomUUID().slice(0, 8)}`;
      const now = new Date();
      const endpoint = await createWebhookEndpoint({ workspaceId: ws, url: `http://localhost:${(server.address() as AddressInfo).port}/in`, events: null, description: null }, now, env.table);
      const eventId = newEventId(now);
      const message = { workspaceId: ws, endpointId: endpoint.id, eventId, type: 'message.received', payload: JSON.stringify({ id: eventId, type: 'message.received', timestamp: now.toISOString(), data: {} }), attempt: 1 };
      // The table throttles the first write of the delivery record, after the SDK's own tries.
      let throttled = false;
      const flaky = {
        ...env.table,
        db: {
          send: (command: unknown) => {
            if (command instanceof UpdateCommand && !throttled && String(command.input.Key?.sk).startsWith('DLV#')) {
              throttled = true;
              return Promise.reject(Object.assign(new Error('Rate of requests exceeds the allowed throughput.'), { name: 'ThrottlingException', $metadata: { httpStatusCode: 400 } }));
            }
            return env.table.db.send(command as never);
          },
        },
      } as unknown as typeof env.table;
      const reachable = { resolve: () => Promise.resolve([{ address: '127.0.0.1', family: 4 as const }]), allowLocal: true };
      // The next attempts queued (delayed, so not yet to be received), as the queue is asked for them.
      const { queue: counting, attempts: next } = countingQueue();
      const deps = { store: flaky, queue: counting, urlRules: reachable, timeoutMs: 1_500 };

      await expect(deliverEvent(message, deps)).rejects.toThrow('Rate of requests');
      // SQS hands the message out again: the same attempt, POSTed again, and one next attempt queued in all.
      expect(await deliverEvent(message, deps)).toBe('retrying');
      expect({ posts, next }).toEqual({ posts: 2, next: [2] });
    } finally {
      await new Promise((resolve) => server.close(resolve));
    }
  });

  // The attempt is recorded before its next one is queued; a queue that then refuses fails the
  // message, which comes back to find its own attempt recorded: it must queue the next, not stop.
  it('queues a failed attempt’s next attempt, without a second POST, when the queue refused it after the attempt was recorded', async () => {
    const { receiver, message: first, reachable, close } = await receiverWithEvent();
    try {
      const message = { ...first, attemptId: 'a1' };
      const { queue: counting, messages: next } = countingQueue();
      let refused = false;
      const refusing = {
        ...counting,
        sqs: {
          send: (command: never) => {
            if (refused) return counting.sqs.send(command);
            refused = true;
            return Promise.reject(Object.assign(new Error('Service unavailable'), { name: 'ServiceUnavailable', $metadata: { httpStatusCode: 503 } }));
          },
        },
      } as unknown as typeof env.queues;
      const deps = (queue: typeof env.queues, now: Date) => ({ store: env.table, queue, now: () => now, urlRules: reachable, timeoutMs: 1_500 });

      await expect(deliverEvent(message, deps(refusing, at(0)))).rejects.toThrow('Service unavailable');
      // Back after the visibility timeout: the next attempt, no POST; due when the record says, and
      // an attempt's time and 5 s after, in case the first was queued after all (decision 209).
      expect(await deliverEvent(message, deps(refusing, at(3)))).toBe('retrying');
      // A copy of that message (another id) is an attempt made already.
      expect(await deliverEvent({ ...message, attemptId: 'a1-copy' }, deps(refusing, at(3.5)))).toBe('replayed');
      expect({ posts: receiver.posts, next: next.map(({ attempt, dueAt }) => ({ attempt, dueAt })) }).toEqual({ posts: 1, next: [{ attempt: 2, dueAt: new Date(T0.getTime() + 5_000 + 1_500 + 5_000).toISOString() }] });
    } finally {
      await close();
    }
  });

  it('gives a delivery up once its endpoint is disabled before its next attempt: `failed`, no next attempt, the last answer kept', async () => {
    const { ws, endpointId, eventIds } = await endpointWithDeliveries(1);
    await disableWebhookEndpoint(ws, endpointId, 'gone', at(0.5), env.table);
    const retry = { workspaceId: ws, endpointId, eventId: eventIds[0]!, type: 'message.received', payload: '{}', attempt: 2, dueAt: at(1).toISOString(), failingSince: at(0).toISOString() };
    expect(await deliverEvent(retry, { store: env.table, queue: env.queues, now: () => at(2) })).toBe('skipped');
    expect(await queued()).toEqual([]);
    await updateWebhookEndpoint(ws, endpointId, { status: 'enabled' }, at(60), env.table);
    const { items } = await listEventDeliveries(ws, endpointId, { limit: 20 }, env.table);
    expect(items).toEqual([{ eventId: eventIds[0], type: 'message.received', state: 'failed', attempts: 1, lastAttemptAt: at(0).toISOString(), lastStatusCode: 500, lastError: null, nextAttemptAt: null }]);
  });

  describe('resend since, page by page', () => {
    /** A delivery record of `eventId` whose POST body is `size` characters. */
    const record = (ws: string, endpointId: string, eventId: string, size = 20) =>
      writeOne(env.table, attemptRecordUpdate({ workspaceId: ws, endpointId, eventId, type: 'message.status.updated', payload: JSON.stringify({ id: eventId, pad: 'x'.repeat(size) }), attempt: 1, attemptedAt: at(5), statusCode: 500, error: null, state: 'failed', nextAttemptAt: null }));
    const recordAll = async (ws: string, endpointId: string, eventIds: string[], size?: number) => {
      for (let i = 0; i < eventIds.length; i += 25) await Promise.all(eventIds.slice(i, i + 25).map((eventId) => record(ws, endpointId, eventId, size)));
    };
    /** Follows `nextSince` from `since` as a caller does, at most `calls` times: each call's resent ids, and where it stopped. */
    const follow = async (ws: string, endpointId: string, since: Date, calls = 5) => {
      const resent: string[][] = [];
      let from: string | null = since.toISOString();
      for (let call = 0; from !== null && call < calls; call++) {
        const answer: { resent: number; nextSince: string | null } = await resendEventsSince(ws, endpointId, new Date(from), env.table, env.queues);
        const ids = (await queued()).map((message) => message.eventId);
        expect(ids).toHaveLength(answer.resent);
        resent.push(ids);
        from = answer.nextSince;
      }
      return { resent, stoppedAt: from };
    };

    // 501 events of one millisecond (a reconciler run moves hundreds of dispatches at one instant):
    // `nextSince` was that millisecond again, and a caller following it never got further.
    it('resends a millisecond holding more than a batch in one call, and goes on past it', async () => {
      const { ws, endpointId } = await endpointWithDeliveries(0);
      const burst = Array.from({ length: 501 }, () => newEventId(at(1)));
      const later = newEventId(at(2));
      await recordAll(ws, endpointId, [...burst, later]);
      const { resent, stoppedAt } = await follow(ws, endpointId, at(1));
      expect(stoppedAt).toBeNull();
      expect(resent.map((ids) => ids.length)).toEqual([501, 1]);
      expect(new Set(resent[0])).toEqual(new Set(burst));
      expect(resent[1]).toEqual([later]);
    }, 30_000);

    // Records keep their POST bodies: 501 of them passed a Query page's 1 MB, the page came back
    // short with no 501st, and `nextSince` said there was nothing more.
    it('pages past DynamoDB’s 1 MB, never ends a call inside a millisecond, and resends each event once', async () => {
      const { ws, endpointId } = await endpointWithDeliveries(0);
      const spread = Array.from({ length: 499 }, (_, i) => newEventId(new Date(at(1).getTime() + i)));
      const together = Array.from({ length: 3 }, () => newEventId(at(3)));
      await recordAll(ws, endpointId, [...spread, ...together], 4_000);
      const { resent, stoppedAt } = await follow(ws, endpointId, at(1));
      expect(stoppedAt).toBeNull();
      expect(resent.map((ids) => ids.length)).toEqual([499, 3]);
      // The queue hands messages out in no order.
      expect([...resent[0]!].sort()).toEqual(spread);
      expect(new Set(resent[1])).toEqual(new Set(together));
    }, 30_000);
  });

  it('refuses to resend or test a disabled endpoint, saying how to re-enable it', async () => {
    const { ws, endpointId, eventIds } = await endpointWithDeliveries(1);
    await disableWebhookEndpoint(ws, endpointId, 'gone', T0, env.table);
    expect(await rejection(resendEvent(ws, endpointId, eventIds[0]!, env.table, env.queues))).toMatchObject({ code: 'validation_failed', message: expect.stringContaining('PATCH') });
    expect(await rejection(sendTestEvent(ws, endpointId, T0, env.table, env.queues))).toMatchObject({ code: 'validation_failed' });
    expect(await queued()).toEqual([]);
  });
});

/** The consumer's own entry point, with the SQS record Lambda would hand it: its receive count is part of what an attempt goes on. */
const received = (message: EventDeliveryMessage, receiveCount: number, deps: EventDeliveryDependencies) => deliverEventRecord(sqsEvent([{ body: message, receiveCount }]).Records[0]!, deps);

describe('an attempt made once, whatever copies of it the queue holds (decisions 209, 220)', () => {
  const seconds = (s: number) => new Date(T0.getTime() + s * 1000);

  // docs/operations.md, webhook-dlq-not-empty: moving the DLQ back is safe, "an attempt already made
  // … is not made again". A message moved back is new to SQS (receive count 1), so a first attempt
  // took itself for one never made: it POSTed again without reading its record, the record refused
  // its write (attempt 1 was recorded), it queued nothing, and the event stayed `retrying` for good
  // (the skeptic review of 02ab681).
  it('queues the next attempt a first attempt moved back from the webhook DLQ left unqueued, and POSTs nothing', async () => {
    const { receiver, ws, endpointId, message, reachable, close } = await receiverWithEvent();
    try {
      const { queue, messages: sent, state } = countingQueue();
      const deps = (now: Date) => ({ store: env.table, queue, now: () => now, urlRules: reachable, timeoutMs: 1_500 });
      // Five receives, the visibility timeout (180 s) apart: the receiver answers 500, attempt 1 is recorded, the queue refuses attempt 2.
      state.refusing = true;
      for (let receiveCount = 1; receiveCount <= 5; receiveCount++) await expect(received(message, receiveCount, deps(seconds(1 + (receiveCount - 1) * 180)))).rejects.toThrow('Service unavailable');
      expect(receiver.posts).toBe(1);
      // The queue is back, and the runbook moves the DLQ back: the same body, received for the first time again.
      state.refusing = false;
      await received(message, 1, deps(seconds(1_200)));

      const { items } = await listEventDeliveries(ws, endpointId, { limit: 5 }, env.table);
      expect({ posts: receiver.posts, queuedAttempts: sent.map((queued) => queued.attempt), state: items[0]?.state }).toEqual({ posts: 1, queuedAttempts: [2], state: 'retrying' });
    } finally {
      await close();
    }
  });

  // A stream batch tried again publishes its events again (decision 91), each copy a new message. Seconds
  // after the event, a copy is not told from its first message: its first attempt goes without a read,
  // so it may POST again under the same webhook-id, and the record's condition keeps the result and the
  // chain one. A copy minutes on (a publisher's failed batch moved back) reads, and is `replayed`.
  it('lets a publisher’s copy of a first attempt POST again seconds after the event, under the same webhook-id, and replays one minutes after', async () => {
    const { receiver, ws, endpointId, message, reachable, close } = await receiverWithEvent();
    try {
      const { queue, messages: sent } = countingQueue();
      const deps = (now: Date) => ({ store: env.table, queue, now: () => now, urlRules: reachable, timeoutMs: 1_500 });
      receiver.answer = 204;
      await received(message, 1, deps(seconds(1)));
      await received(message, 1, deps(seconds(5)));
      expect(receiver.posts).toBe(2);
      await received(message, 1, deps(seconds(1_200)));

      const { items } = await listEventDeliveries(ws, endpointId, { limit: 5 }, env.table);
      expect({ posts: receiver.posts, queued: sent.length, state: items[0]?.state, attempts: items[0]?.attempts }).toEqual({ posts: 2, queued: 0, state: 'delivered', attempts: 2 });
    } finally {
      await close();
    }
  });

  // docs/api.md, "Resend": resends of one event queued before the first of them is attempted are one
  // resend. Asked twice at once (an integration retrying a resend whose answer it lost), both messages
  // are of the same round, and a consumer batch posts its records at once: both read no attempt of
  // that round, and both POSTed (the integration developer review).
  it('POSTs once for two resends of one event queued before either was attempted, attempted at once', async () => {
    const { receiver, ws, endpointId, message, reachable, close } = await receiverWithEvent();
    try {
      const deps = (now: Date) => ({ store: env.table, queue: env.queues, now: () => now, urlRules: reachable, timeoutMs: 1_500 });
      receiver.answer = 204;
      expect(await deliverEvent(message, deps(at(0)))).toBe('delivered');
      await resendEvent(ws, endpointId, message.eventId, env.table, env.queues);
      await resendEvent(ws, endpointId, message.eventId, env.table, env.queues);
      const resends = await queued();
      expect(resends).toHaveLength(2);

      const outcomes = await Promise.all(resends.map((resend) => deliverEvent(resend, deps(at(1)))));
      expect({ posts: receiver.posts, outcomes: outcomes.sort() }).toEqual({ posts: 2, outcomes: ['delivered', 'replayed'] });
    } finally {
      await close();
    }
  });

  // The round is claimed for an attempt's time only: an invocation that dies between its claim and its
  // record (here the table refuses the record after the POST) leaves the claim to lapse, and the
  // message, back after the visibility timeout, is attempted. A copy within the claim's time is not.
  it('makes a resend whose invocation died after claiming its round once its message comes back', async () => {
    const { receiver, ws, endpointId, message, reachable, close } = await receiverWithEvent();
    try {
      const throttling = {
        ...env.table,
        db: {
          send: (command: unknown) =>
            command instanceof UpdateCommand && String(command.input.UpdateExpression).includes('ADD attempts')
              ? Promise.reject(Object.assign(new Error('Rate of requests exceeds the allowed throughput.'), { name: 'ThrottlingException', $metadata: { httpStatusCode: 400 } }))
              : env.table.db.send(command as never),
        },
      } as unknown as typeof env.table;
      const deps = (store: typeof env.table, now: Date) => ({ store, queue: env.queues, now: () => now, urlRules: reachable, timeoutMs: 1_500 });
      receiver.answer = 204;
      expect(await deliverEvent(message, deps(env.table, at(0)))).toBe('delivered');
      await resendEvent(ws, endpointId, message.eventId, env.table, env.queues);
      const [resend] = await queued();

      await expect(deliverEvent(resend!, deps(throttling, at(1)))).rejects.toThrow('Rate of requests');
      expect(await deliverEvent(resend!, deps(env.table, new Date(at(1).getTime() + 2_000)))).toBe('replayed');
      expect(await deliverEvent(resend!, deps(env.table, new Date(at(1).getTime() + 180_000)))).toBe('delivered');

      const { items } = await listEventDeliveries(ws, endpointId, { limit: 5 }, env.table);
      expect({ posts: receiver.posts, state: items[0]?.state, lastAttemptAt: items[0]?.lastAttemptAt }).toEqual({ posts: 3, state: 'delivered', lastAttemptAt: new Date(at(1).getTime() + 180_000).toISOString() });
    } finally {
      await close();
    }
  });
});

describe('events an endpoint misses while disabled (decision 165)', () => {
  // The docs said to re-enable, then resend what it missed; but nothing was kept of the events made
  // while it was disabled, and a workspace whose only endpoint was disabled wrote none at all.
  const newEndpoint = async (events: WebhookEventType[] | null = null) => {
    const ws = `ws-${randomUUID().slice(0, 8)}`;
    return { ws, endpoint: await createWebhookEndpoint({ workspaceId: ws, url: 'https://hooks.example.com/in', events, description: null }, T0, env.table) };
  };
  /** Publishes one event of `type` made now, gated as a dispatch change is. */
  const publish = async (ws: string, type: WebhookEventType = 'message.received') => {
    const eventId = newEventId(new Date());
    const payload = JSON.stringify({ id: eventId, type, timestamp: new Date().toISOString(), data: {} });
    const [result] = await publishStreamEvents([{ workspaceId: ws, gated: true, event: () => ({ workspaceId: ws, eventId, type, payload }) }], env.table, env.queues);
    expect(result).toMatchObject({ status: 'fulfilled' });
    return eventId;
  };
  beforeEach(() => {
    resetContainerCaches();
    clearEventGateCache();
  });

  it('keeps each event a disabled endpoint subscribes to as a failed delivery with no POST, which a resend after re-enabling sends', async () => {
    const { ws, endpoint } = await newEndpoint(['message.received']);
    await disableWebhookEndpoint(ws, endpoint.id, 'failing', new Date(), env.table);
    expect(await writesEvents(ws, env.table)).toBe(true);
    const missed = await publish(ws);
    await publish(ws, 'message.status.updated'); // not subscribed to: not kept
    expect(await queued()).toEqual([]);

    const { items } = await listEventDeliveries(ws, endpoint.id, { limit: 20 }, env.table);
    expect(items).toEqual([{ eventId: missed, type: 'message.received', state: 'failed', attempts: 0, lastAttemptAt: null, lastStatusCode: null, lastError: 'endpoint_disabled', nextAttemptAt: null }]);

    await updateWebhookEndpoint(ws, endpoint.id, { status: 'enabled' }, new Date(), env.table);
    expect(await resendEventsSince(ws, endpoint.id, T0, env.table, env.queues)).toEqual({ resent: 1, nextSince: null });
    expect(await queued()).toEqual([expect.objectContaining({ eventId: missed, attempt: 1 })]);
  });

  it('keeps a first attempt the consumer finds disabled the same way, and leaves a delivered record as it was', async () => {
    const { ws, endpoint } = await newEndpoint();
    const [first, delivered] = [newEventId(at(1)), newEventId(at(2))];
    await writeOne(env.table, attemptRecordUpdate({ workspaceId: ws, endpointId: endpoint.id, eventId: delivered, type: 'message.received', payload: '{}', attempt: 1, attemptedAt: at(2), statusCode: 204, error: null, state: 'delivered', nextAttemptAt: null }));
    await disableWebhookEndpoint(ws, endpoint.id, 'gone', at(3), env.table);
    for (const eventId of [first, delivered]) {
      expect(await deliverEvent({ workspaceId: ws, endpointId: endpoint.id, eventId, type: 'message.received', payload: '{}', attempt: 1 }, { store: env.table, queue: env.queues, now: () => at(4) })).toBe('skipped');
    }
    const { items } = await listEventDeliveries(ws, endpoint.id, { limit: 20 }, env.table);
    expect(items.map((item) => [item.eventId, item.state, item.attempts, item.lastError])).toEqual([
      [delivered, 'delivered', 1, null],
      [first, 'failed', 0, 'endpoint_disabled'],
    ]);
  });

  it('stops keeping them, and writing events for a workspace with no other endpoint, once the endpoint has been disabled as long as records are kept', async () => {
    const { ws, endpoint } = await newEndpoint();
    await disableWebhookEndpoint(ws, endpoint.id, 'gone', new Date(Date.now() - MISSED_EVENTS_KEPT_MS - 60_000), env.table);
    expect(await writesEvents(ws, env.table)).toBe(false);
    const [result] = await publishStreamEvents([{ workspaceId: ws, gated: true, event: () => ({ workspaceId: ws, eventId: newEventId(new Date()), type: 'message.received', payload: '{}' }) }], env.table, env.queues);
    expect(result).toEqual({ status: 'fulfilled', value: undefined });
    expect((await listEventDeliveries(ws, endpoint.id, { limit: 20 }, env.table)).items).toEqual([]);
  });
});

describe('when an endpoint counts as failing (3 days of events given up, no 2xx since)', () => {
  const DAY = 24 * 60 * 60_000;
  const t0 = T0.getTime();
  const unreachable = { resolve: () => Promise.reject(new Error('ENOTFOUND')), allowLocal: false };
  /** An endpoint created a month before the failures below, unless `createdAt` says otherwise. */
  const newEndpoint = async (url = 'https://hooks.example.com/in', createdAt = new Date(t0 - 30 * DAY)) => {
    const ws = `ws-${randomUUID().slice(0, 8)}`;
    return { ws, endpoint: await createWebhookEndpoint({ workspaceId: ws, url, events: null, description: null }, createdAt, env.table) };
  };
  /** The last attempt at an event that first failed at `firstFailure`, made at `now`. */
  const attempt = (
    ws: string,
    endpointId: string,
    now: number,
    options: { attempt: number; firstFailure?: number; rules?: { resolve: () => Promise<{ address: string; family: 4 }[]>; allowLocal: boolean }; endpoints?: EndpointReader },
  ) =>
    deliverEvent(
      { workspaceId: ws, endpointId, eventId: newEventId(new Date(now)), type: 'message.received', payload: '{}', attempt: options.attempt, ...(options.firstFailure === undefined ? {} : { failingSince: new Date(options.firstFailure).toISOString() }) },
      { store: env.table, queue: env.queues, now: () => new Date(now), urlRules: options.rules ?? unreachable, timeoutMs: 2_000, ...(options.endpoints ? { endpoints: options.endpoints } : {}) },
    );
  const statusOf = async (ws: string, endpointId: string) => (await getWebhookEndpoint(ws, endpointId, env.table))!.status;
  const HOUR = 60 * 60_000;
  /** An endpoint disabled as `failing` at day 3.1 (its events given up since day 0), re-enabled at day 10. */
  const reEnabledAfterFailing = async () => {
    const { ws, endpoint } = await newEndpoint();
    await attempt(ws, endpoint.id, t0 + 1.1 * DAY, { attempt: 11, firstFailure: t0 });
    await attempt(ws, endpoint.id, t0 + 3.1 * DAY, { attempt: 11, firstFailure: t0 + 2 * DAY });
    expect(await statusOf(ws, endpoint.id)).toBe('disabled');
    await updateWebhookEndpoint(ws, endpoint.id, { status: 'enabled' }, new Date(t0 + 10 * DAY), env.table);
    return { ws, endpoint };
  };
  /** URL rules that let the attempts reach a receiver on this machine. */
  const reachable = { resolve: () => Promise.resolve([{ address: '127.0.0.1', family: 4 as const }]), allowLocal: true };
  /** Runs `work` on an endpoint whose receiver, on this machine, answers every POST 204. */
  const withAnsweringEndpoint = async (work: (ws: string, endpointId: string, createdAt: string) => Promise<void>) => {
    const server = createServer((request, response) => request.resume().on('end', () => response.writeHead(204).end()));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    try {
      const { ws, endpoint } = await newEndpoint(`http://localhost:${(server.address() as AddressInfo).port}/in`);
      await work(ws, endpoint.id, endpoint.createdAt);
    } finally {
      await new Promise((resolve) => server.close(resolve));
    }
  };
  beforeEach(() => resetContainerCaches());
  afterEach(async () => void (await queued()));

  // Re-enabling left the health item's `failingSince` in place: the first event given up after it disabled the endpoint again at once.
  it('counts the days afresh once a `failing` endpoint is re-enabled', async () => {
    const { ws, endpoint } = await reEnabledAfterFailing();
    expect(await attempt(ws, endpoint.id, t0 + 11.1 * DAY, { attempt: 11, firstFailure: t0 + 10 * DAY })).toBe('abandoned');
    expect(await statusOf(ws, endpoint.id)).toBe('enabled');
    // A retry queued before the endpoint was disabled still names its first failure: it counts from the re-enable too.
    expect(await attempt(ws, endpoint.id, t0 + 12 * DAY, { attempt: 11, firstFailure: t0 + 2 * DAY })).toBe('abandoned');
    expect(await statusOf(ws, endpoint.id)).toBe('enabled');
    expect(await attempt(ws, endpoint.id, t0 + 13.1 * DAY, { attempt: 11, firstFailure: t0 + 12 * DAY })).toBe('abandoned');
    expect(await statusOf(ws, endpoint.id)).toBe('disabled');
  });

  // A batch reads each endpoint once. One that read it before another container disabled it and the
  // integration re-enabled it judged failures the re-enable forgave: its disable did not see the re-enable.
  it('leaves an endpoint re-enabled since a delivery batch read it enabled, whatever that batch gives up', async () => {
    const { ws, endpoint } = await newEndpoint();
    await attempt(ws, endpoint.id, t0 + 1.1 * DAY, { attempt: 11, firstFailure: t0 });
    const batchRead = endpointReadsOfBatch(env.table);
    expect(await batchRead(ws, endpoint.id)).toMatchObject({ status: 'enabled' });
    await attempt(ws, endpoint.id, t0 + 3.1 * DAY, { attempt: 11, firstFailure: t0 + 2 * DAY });
    expect(await statusOf(ws, endpoint.id)).toBe('disabled');
    await updateWebhookEndpoint(ws, endpoint.id, { status: 'enabled' }, new Date(t0 + 3.1 * DAY + 5_000), env.table);

    expect(await attempt(ws, endpoint.id, t0 + 3.1 * DAY + 10_000, { attempt: 11, firstFailure: t0 + 2.5 * DAY, endpoints: batchRead })).toBe('abandoned');
    expect(await getWebhookEndpoint(ws, endpoint.id, env.table)).toMatchObject({ status: 'enabled', disabledReason: null });
  });

  // Re-enabled, then quiet for two days: the first event given up counted from the re-enable, not from its own first failure.
  it('counts a re-enabled endpoint from the first failure after the re-enable, as a new endpoint with the same history', async () => {
    const { ws, endpoint } = await reEnabledAfterFailing();
    // Quiet for two days; then one event fails through its whole schedule and is given up.
    expect(await attempt(ws, endpoint.id, t0 + 13.1 * DAY, { attempt: 11, firstFailure: t0 + 12 * DAY })).toBe('abandoned');
    const twin = await newEndpoint('https://hooks.example.com/in', new Date(t0 + 10 * DAY));
    expect(await attempt(twin.ws, twin.endpoint.id, t0 + 13.1 * DAY, { attempt: 11, firstFailure: t0 + 12 * DAY })).toBe('abandoned');
    expect([await statusOf(ws, endpoint.id), await statusOf(twin.ws, twin.endpoint.id)]).toEqual(['enabled', 'enabled']);
    // And the days count on from there.
    expect(await attempt(ws, endpoint.id, t0 + 15.1 * DAY, { attempt: 11, firstFailure: t0 + 14 * DAY })).toBe('abandoned');
    expect(await statusOf(ws, endpoint.id)).toBe('disabled');
  });

  // A container that had cleared the mark within five minutes skipped clearing it after a 2xx, though an event had been given up in between.
  it('does not count from before a 2xx the endpoint answered, however soon after another', () =>
    withAnsweringEndpoint(async (ws, endpointId) => {
      expect(await attempt(ws, endpointId, t0, { attempt: 1, rules: reachable })).toBe('delivered');
      expect(await attempt(ws, endpointId, t0 + 60_000, { attempt: 11, firstFailure: t0 - 25 * HOUR })).toBe('abandoned');
      expect(await attempt(ws, endpointId, t0 + 120_000, { attempt: 1, rules: reachable })).toBe('delivered');
      expect(await attempt(ws, endpointId, t0 + 47 * HOUR, { attempt: 11, firstFailure: t0 + 21 * HOUR })).toBe('abandoned');
      expect(await getWebhookEndpoint(ws, endpointId, env.table)).toMatchObject({ status: 'enabled', disabledReason: null });
    }));

  // The give-up in another container (up to ten run at once) left this one's "cleared" mark in place: its 2xx skipped the clear.
  it('does not count from before a 2xx that followed a give-up in another container', () =>
    withAnsweringEndpoint(async (ws, endpointId, createdAt) => {
      expect(await attempt(ws, endpointId, t0, { attempt: 1, rules: reachable })).toBe('delivered');
      // Another container (its own module state) gives an event up a minute later.
      let otherContainer!: typeof EndpointHealth;
      jest.isolateModules(() => {
        otherContainer = jest.requireActual('../../lambdas/domain/webhooks/endpoint-health');
      });
      await otherContainer.noteGivenUp(ws, endpointId, new Date(t0 - 25 * HOUR), new Date(createdAt), env.table);
      // This container delivers the next event: 2xx after the give-up, within its five minutes.
      expect(await attempt(ws, endpointId, t0 + 120_000, { attempt: 1, rules: reachable })).toBe('delivered');
      expect(await attempt(ws, endpointId, t0 + 47 * HOUR, { attempt: 11, firstFailure: t0 + 21 * HOUR })).toBe('abandoned');
      expect(await getWebhookEndpoint(ws, endpointId, env.table)).toMatchObject({ status: 'enabled', disabledReason: null });
    }));
});
