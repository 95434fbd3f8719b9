import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { createServer as createNetServer, type AddressInfo, type Socket } from 'node:net';
import { SendMessageBatchCommand, SQSClient } from '@aws-sdk/client-sqs';
import { DynamoDBDocumentClient, GetCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { mockClient } from 'aws-sdk-client-mock';
import { Webhook } from 'standardwebhooks';
import { deliverEvent, UNREAD_FIRST_ATTEMPT_MS, type EventDeliveryDependencies } from '../../../lambdas/domain/webhooks/deliver-event';
import { FAILING_DISABLE_AFTER_MS } from '../../../lambdas/domain/webhooks/endpoint-health';
import { eventDeliveryMessageSchema, type EventDeliveryMessage } from '../../../lambdas/domain/webhooks/event-queue';
import { MAX_ATTEMPTS, RETRY_DELAYS_SECONDS } from '../../../lambdas/domain/webhooks/retry-schedule';
import { MAX_QUEUE_DELAY_SECONDS, queueText } from '../../../lambdas/shared/queue';
import { readQueueRecord } from '../../../lambdas/shared/queue-record';
import { newWebhookSecret } from '../../../lambdas/domain/webhooks/webhook-endpoint';
import { messageStatusEvent, newEventId } from '../../../lambdas/domain/webhooks/webhook-event';
import type { Resolver } from '../../../lambdas/domain/webhooks/url-rules';
import { keys } from '../../../lambdas/shared/table';
import { deliverEventBatch } from '../../../lambdas/handlers/deliver-webhook-event';
import { lambdaContext, resetContainerCaches } from '../../../lib/testing';
import { sqsEvent } from '../../../lib/testing/sqs-events';
import { captureLogLines } from '../../support/log-lines';

const ddb = mockClient(DynamoDBDocumentClient);
const sqs = mockClient(SQSClient);
const WS = 'ws-hooks';
const ENDPOINT_ID = `whe_${'a'.repeat(32)}`;
const SECRET = newWebhookSecret();
const T0 = new Date('2026-11-20T08:00:00.000Z');

/** A receiver on this machine that answers with `answer` and keeps what it got. */
async function receiver(answer: (request: IncomingMessage) => number | 'hang' = () => 204) {
  const received: { headers: IncomingMessage['headers']; body: string }[] = [];
  const held: ServerResponse[] = [];
  const server = createServer((request, response) => {
    let body = '';
    request.on('data', (chunk: Buffer) => (body += chunk.toString()));
    request.on('end', () => {
      received.push({ headers: request.headers, body });
      const status = answer(request);
      if (status === 'hang') held.push(response);
      else response.writeHead(status).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://localhost:${port}/hooks`,
    received,
    close: () => {
      for (const response of held) response.destroy();
      return new Promise((resolve) => server.close(resolve));
    },
  };
}
type Receiver = Awaited<ReturnType<typeof receiver>>;

const loopback: Resolver = () => Promise.resolve([{ address: '127.0.0.1', family: 4 }]);
const endpointItem = (url: string, overrides: Record<string, unknown> = {}) => ({
  ...keys.webhookEndpoint(WS, ENDPOINT_ID),
  entity: 'webhookEndpoint',
  id: ENDPOINT_ID,
  workspaceId: WS,
  url,
  events: null,
  description: null,
  status: 'enabled',
  disabledReason: null,
  createdAt: T0.toISOString(),
  updatedAt: T0.toISOString(),
  secrets: [{ secret: SECRET, expiresAt: null }],
  ...overrides,
});
const event = messageStatusEvent(
  {
    dispatchId: '3f2b0c1e-5d6a-4b7c-8d9e-0f1a2b3c4d5e',
    workspaceId: WS,
    channel: 'whatsapp',
    to: '+6281234567890',
    templateId: '7b0c5c3e-0000-4000-8000-000000000001',
    templateName: 'Order shipped',
    providerTemplateName: 'order_shipped',
    language: 'id',
    bodyParameters: [],
    tagIds: [],
    trackingTags: [],
    source: 'EXTERNAL_API',
    apiClient: null,
    status: 'delivered',
    creditCost: 1,
    amountRupiah: 150,
    createdAt: T0.toISOString(),
    updatedAt: T0.toISOString(),
    sentAt: T0.toISOString(),
    deliveredAt: T0.toISOString(),
    readAt: null,
    pricing: null,
    failureCode: null,
    sequence: 4,
  },
  T0,
);
const firstMessage: EventDeliveryMessage = { workspaceId: WS, endpointId: ENDPOINT_ID, eventId: event.id, type: event.type, payload: JSON.stringify(event), attempt: 1 };

let clock: Date;
const deps = (overrides: Partial<EventDeliveryDependencies> = {}): EventDeliveryDependencies => ({
  now: () => clock,
  urlRules: { resolve: loopback, allowLocal: true },
  timeoutMs: 2_000,
  ...overrides,
});
/** The messages the consumer put back on the queue, with their delays and groups, in order. */
const queued = () =>
  sqs.commandCalls(SendMessageBatchCommand).flatMap((call) =>
    (call.args[0].input.Entries ?? []).map((entry) => ({
      message: eventDeliveryMessageSchema.parse(JSON.parse(entry.MessageBody!)),
      delaySeconds: entry.DelaySeconds ?? 0,
      group: entry.MessageGroupId,
    })),
  );
const recorded = () => ddb.commandCalls(UpdateCommand, { Key: keys.webhookDelivery(WS, ENDPOINT_ID, event.id) }).map((call) => call.args[0].input.ExpressionAttributeValues!);
const endpointUpdates = () => ddb.commandCalls(UpdateCommand, { Key: keys.webhookEndpoint(WS, ENDPOINT_ID) }).map((call) => call.args[0].input.ExpressionAttributeValues!);

let target: Receiver;
beforeEach(() => {
  ddb.reset();
  sqs.reset();
  resetContainerCaches();
  clock = T0;
  sqs.on(SendMessageBatchCommand).resolves({ Successful: [], Failed: [] });
  ddb.on(UpdateCommand).resolves({});
  // No delivery record yet: every attempt comes after it.
  ddb.on(GetCommand).resolves({});
});
afterEach(() => target?.close());
const useEndpoint = (url: string, overrides: Record<string, unknown> = {}) =>
  ddb.on(GetCommand, { Key: keys.webhookEndpoint(WS, ENDPOINT_ID) }).resolves({ Item: endpointItem(url, overrides) });

describe('delivering one webhook event', () => {
  it('POSTs {id,type,timestamp,data} signed to the Standard Webhooks spec: the standardwebhooks package verifies it', async () => {
    target = await receiver();
    useEndpoint(target.url);

    expect(await deliverEvent(firstMessage, deps())).toBe('delivered');

    const [{ headers, body }] = target.received as [Receiver['received'][number]];
    expect(JSON.parse(body)).toEqual({ id: event.id, type: 'message.status.updated', timestamp: T0.toISOString(), data: event.data });
    expect(headers['webhook-id']).toBe(event.id);
    expect(headers['webhook-timestamp']).toBe(String(T0.getTime() / 1000));
    expect(headers['content-type']).toBe('application/json');
    const verify = () => new Webhook(SECRET).verify(body, { 'webhook-id': headers['webhook-id'] as string, 'webhook-timestamp': headers['webhook-timestamp'] as string, 'webhook-signature': headers['webhook-signature'] as string });
    jest.useFakeTimers({ now: T0, doNotFake: ['nextTick', 'setImmediate', 'setTimeout', 'setInterval', 'queueMicrotask'] });
    try {
      expect(verify()).toEqual(JSON.parse(body));
      expect(() => new Webhook(newWebhookSecret()).verify(body, headers as Record<string, string>)).toThrow('No matching signature found');
    } finally {
      jest.useRealTimers();
    }
    expect(recorded()).toEqual([expect.objectContaining({ ':state': 'delivered', ':code': 204, ':error': null, ':next': null })]);
  });

  // The queue's text escapes what SQS or its local emulator refuses (U+FFFF; an emoji's UTF-16 halves,
  // decision 240); the receiver gets the event's own bytes, which its signature covers.
  it('POSTs the event’s bytes as published, an emoji and a U+FFFF included: the queue’s escapes never reach the receiver', async () => {
    target = await receiver();
    useEndpoint(target.url);
    const payload = JSON.stringify({ ...event, data: { ...event.data, templateName: 'Terima kasih 🙏 "A-1042" \uffff' } });
    const text = queueText({ ...firstMessage, payload });
    expect(text).toMatch(/^[\x20-\x7e]*$/);

    // Read as the consumer reads its record.
    const read = readQueueRecord(sqsEvent([{ body: text }]).Records[0]!, eventDeliveryMessageSchema, 'webhook event');
    expect(await deliverEvent(read!, deps({ now: () => new Date() }))).toBe('delivered');

    const [{ headers, body }] = target.received as [Receiver['received'][number]];
    expect(body).toBe(payload);
    expect(new Webhook(SECRET).verify(body, headers as Record<string, string>)).toEqual(JSON.parse(payload));
  });

  it('signs with every secret still in its overlap, space-separated, so a receiver holding either verifies', async () => {
    target = await receiver();
    const next = newWebhookSecret();
    const expired = newWebhookSecret();
    useEndpoint(target.url, {
      secrets: [
        { secret: next, expiresAt: null },
        { secret: SECRET, expiresAt: new Date(T0.getTime() + 3_600_000).toISOString() },
        { secret: expired, expiresAt: new Date(T0.getTime() - 1).toISOString() },
      ],
    });

    await deliverEvent(firstMessage, deps());

    const [{ headers, body }] = target.received as [Receiver['received'][number]];
    expect((headers['webhook-signature'] as string).split(' ')).toHaveLength(2);
    jest.useFakeTimers({ now: T0, doNotFake: ['nextTick', 'setImmediate', 'setTimeout', 'setInterval', 'queueMicrotask'] });
    try {
      for (const secret of [next, SECRET]) expect(new Webhook(secret).verify(body, headers as Record<string, string>)).toEqual(JSON.parse(body));
      expect(() => new Webhook(expired).verify(body, headers as Record<string, string>)).toThrow('No matching signature found');
    } finally {
      jest.useRealTimers();
    }
  });

  it('retries a refusing receiver for more than 24 hours on the schedule, always with the same webhook-id, never holding a message back past SQS’s 15 minutes, then gives the event up', async () => {
    target = await receiver(() => 500);
    useEndpoint(target.url);
    ddb.on(UpdateCommand, { Key: keys.webhookEndpointHealth(WS, ENDPOINT_ID) }).resolves({ Attributes: { failingSince: T0.toISOString() } });
    const attemptsAt: number[] = [];

    let message = firstMessage;
    let outcome = await deliverEvent(message, deps());
    attemptsAt.push(clock.getTime());
    for (let sent = queued().length; outcome !== 'abandoned'; sent = queued().length) {
      const [next] = queued().slice(sent - 1);
      expect(next!.delaySeconds).toBeLessThanOrEqual(MAX_QUEUE_DELAY_SECONDS);
      // A retry is still its workspace's message, for the queue's fairness between workspaces.
      expect(next!.group).toBe(WS);
      // SQS hands the message out once its delay is over.
      clock = new Date(clock.getTime() + next!.delaySeconds * 1000);
      message = next!.message;
      const postsBefore = target.received.length;
      outcome = await deliverEvent(message, deps());
      if (target.received.length > postsBefore) attemptsAt.push(clock.getTime());
      expect(['retrying', 'waiting', 'abandoned']).toContain(outcome);
    }

    expect(target.received).toHaveLength(MAX_ATTEMPTS);
    expect(new Set(target.received.map(({ headers }) => headers['webhook-id']))).toEqual(new Set([event.id]));
    expect(new Set(target.received.map(({ body }) => body))).toEqual(new Set([firstMessage.payload]));
    const gaps = attemptsAt.slice(1).map((at, i) => (at - attemptsAt[i]!) / 1000);
    expect(gaps).toEqual([...RETRY_DELAYS_SECONDS]);
    expect(attemptsAt.at(-1)! - attemptsAt[0]!).toBeGreaterThanOrEqual(24 * 3_600_000);
    expect(recorded().at(-1)).toMatchObject({ ':state': 'failed', ':code': 500, ':next': null });
    expect(recorded().filter((values) => values[':state'] === 'retrying')).toHaveLength(MAX_ATTEMPTS - 1);
    // A day of failures marks the endpoint failing since the first one, but does not disable it.
    expect(ddb.commandCalls(UpdateCommand, { Key: keys.webhookEndpointHealth(WS, ENDPOINT_ID) })[0]!.args[0].input.ExpressionAttributeValues).toMatchObject({ ':since': T0.toISOString() });
    expect(endpointUpdates()).toEqual([]);
  });

  it('disables the endpoint (gone) when the receiver answers 410, and retries nothing', async () => {
    target = await receiver(() => 410);
    useEndpoint(target.url);

    expect(await deliverEvent(firstMessage, deps())).toBe('gone');

    expect(endpointUpdates()).toEqual([expect.objectContaining({ ':status': 'disabled', ':disabledReason': 'gone' })]);
    expect(queued()).toEqual([]);
    expect(recorded()).toEqual([expect.objectContaining({ ':state': 'failed', ':code': 410 })]);
  });

  it('disables an endpoint whose events have been given up for days (failing)', async () => {
    target = await receiver(() => 503);
    useEndpoint(target.url);
    clock = new Date(T0.getTime() + FAILING_DISABLE_AFTER_MS);
    ddb.on(UpdateCommand, { Key: keys.webhookEndpointHealth(WS, ENDPOINT_ID) }).resolves({ Attributes: { failingSince: T0.toISOString() } });

    expect(await deliverEvent({ ...firstMessage, attempt: MAX_ATTEMPTS, failingSince: T0.toISOString() }, deps())).toBe('abandoned');

    expect(endpointUpdates()).toEqual([expect.objectContaining({ ':status': 'disabled', ':disabledReason': 'failing' })]);
  });

  it('keeps an endpoint given up on for less than that', async () => {
    target = await receiver(() => 503);
    useEndpoint(target.url);
    clock = new Date(T0.getTime() + FAILING_DISABLE_AFTER_MS - 1);
    ddb.on(UpdateCommand, { Key: keys.webhookEndpointHealth(WS, ENDPOINT_ID) }).resolves({ Attributes: { failingSince: T0.toISOString() } });

    expect(await deliverEvent({ ...firstMessage, attempt: MAX_ATTEMPTS, failingSince: T0.toISOString() }, deps())).toBe('abandoned');

    expect(endpointUpdates()).toEqual([]);
  });

  it('checks the URL again at delivery: a name that now resolves to a private address gets no POST, and the attempt counts as failed', async () => {
    target = await receiver();
    useEndpoint(target.url);

    expect(await deliverEvent(firstMessage, deps({ urlRules: { resolve: () => Promise.resolve([{ address: '10.0.0.7', family: 4 }]), allowLocal: true } }))).toBe('retrying');

    expect(target.received).toEqual([]);
    expect(recorded()).toEqual([expect.objectContaining({ ':state': 'retrying', ':code': null, ':error': expect.stringMatching(/^url_refused: .*10\.0\.0\.7/) })]);
  });

  it('connects to the address the check approved, keeping the URL’s host name in the Host header', async () => {
    target = await receiver();
    useEndpoint(target.url);
    const asked: string[] = [];
    const resolve: Resolver = (hostname) => {
      asked.push(hostname);
      return Promise.resolve([{ address: '127.0.0.1', family: 4 }]);
    };

    await deliverEvent(firstMessage, deps({ urlRules: { resolve, allowLocal: true } }));

    expect(asked).toEqual(['localhost']);
    expect(target.received[0]!.headers.host).toBe(new URL(target.url).host);
  });

  it('tries the next address the check approved when one refuses the connection, as a client would: a name with one dead host still gets its events', async () => {
    target = await receiver();
    useEndpoint(target.url);
    // Nothing listens on 127.0.0.2 (the receiver is bound to 127.0.0.1 only): that connection is refused.
    const resolve: Resolver = () => Promise.resolve([{ address: '127.0.0.2', family: 4 }, { address: '127.0.0.1', family: 4 }]);

    expect(await deliverEvent(firstMessage, deps({ urlRules: { resolve, allowLocal: true } }))).toBe('delivered');

    expect(target.received).toHaveLength(1);
    expect(recorded()).toEqual([expect.objectContaining({ ':state': 'delivered', ':code': 204, ':error': null })]);
  });

  // docs/api.md: any 2xx is delivered, redirects are not followed.
  it.each([301, 302, 307, 308])('counts a %s answer as a failed attempt, retried, not a delivery', async (status) => {
    target = await receiver(() => status);
    useEndpoint(target.url);

    expect(await deliverEvent(firstMessage, deps())).toBe('retrying');

    expect(target.received).toHaveLength(1);
    expect(recorded()).toEqual([expect.objectContaining({ ':state': 'retrying', ':code': status })]);
    expect(queued().map(({ message }) => message.attempt)).toEqual([2]);
  });

  it('counts a receiver that does not answer in time as a failed attempt', async () => {
    target = await receiver(() => 'hang');
    useEndpoint(target.url);

    expect(await deliverEvent(firstMessage, deps({ timeoutMs: 200 }))).toBe('retrying');

    expect(recorded()).toEqual([expect.objectContaining({ ':code': null, ':error': 'timeout' })]);
  });

  // Node hands a 101 to an 'upgrade' listener, not to the response callback, and the request is
  // over by then, so the attempt's abort signal never fired: the attempt hung until Lambda's
  // timeout failed the whole batch, every other workspace's events in it included.
  it('counts a receiver that answers 101 Switching Protocols as a failed attempt, at once, and closes its socket', async () => {
    const sockets: Socket[] = [];
    const switching = createNetServer((socket) => {
      sockets.push(socket);
      socket.on('error', () => undefined);
      socket.once('data', () => socket.write('HTTP/1.1 101 Switching Protocols\r\nConnection: Upgrade\r\nUpgrade: websocket\r\n\r\n'));
    });
    await new Promise<void>((resolve) => switching.listen(0, '127.0.0.1', resolve));
    useEndpoint(`http://127.0.0.1:${(switching.address() as AddressInfo).port}/hooks`);
    try {
      const outcome = await Promise.race([deliverEvent(firstMessage, deps({ timeoutMs: 60_000 })), new Promise((resolve) => setTimeout(() => resolve('no outcome after 5 s'), 5_000))]);
      expect(outcome).toBe('retrying');
      expect(recorded()).toEqual([expect.objectContaining({ ':code': 101 })]);
      // The receiver sees its connection closed: nothing is left open on our side.
      const closed = Promise.all(sockets.map((socket) => new Promise((resolve) => (socket.readableEnded ? resolve(true) : socket.once('end', () => resolve(true))))));
      expect(await Promise.race([closed, new Promise((resolve) => setTimeout(() => resolve('still open after 5 s'), 5_000))])).toEqual([true]);
    } finally {
      for (const socket of sockets) socket.destroy();
      switching.close();
    }
  });

  it('counts the name’s lookup in the attempt’s time: a resolver that does not answer is a timeout, retried, and nothing is posted', async () => {
    target = await receiver();
    useEndpoint(target.url);
    const stalled: Resolver = () => new Promise(() => undefined);

    expect(await deliverEvent(firstMessage, deps({ timeoutMs: 200, urlRules: { resolve: stalled, allowLocal: true } }))).toBe('retrying');

    expect(target.received).toEqual([]);
    expect(recorded()).toEqual([expect.objectContaining({ ':state': 'retrying', ':code': null, ':error': 'timeout' })]);
  });

  it('sends nothing to a disabled or deleted endpoint', async () => {
    target = await receiver();
    useEndpoint(target.url, { status: 'disabled', disabledReason: 'gone' });
    expect(await deliverEvent(firstMessage, deps())).toBe('skipped');
    ddb.on(GetCommand, { Key: keys.webhookEndpoint(WS, ENDPOINT_ID) }).resolves({});
    expect(await deliverEvent(firstMessage, deps())).toBe('skipped');
    expect(target.received).toEqual([]);
  });
});

describe('the webhook-events consumer (SQS), reading the delivery record before a POST (decision 209)', () => {
  const recordReads = (eventId = event.id) => ddb.commandCalls(GetCommand, { Key: keys.webhookDelivery(WS, ENDPOINT_ID, eventId) }).length;

  // The read cost every attempt half a read unit, and row 8k of the bench its target: an event's
  // first attempt, handed out for the first time, has no earlier attempt of its own to follow. A
  // message moved back from the DLQ is handed out for the first time again, but long after its event
  // was made, and reads (decision 220).
  it('takes an event’s first attempt on its first receive soon after the event without reading the record; a receive again, a retry, a resend or a first receive long after the event reads it first', async () => {
    target = await receiver();
    useEndpoint(target.url);
    const batch = (body: EventDeliveryMessage, receiveCount: number) => deliverEventBatch(sqsEvent([{ body, receiveCount }]), lambdaContext('deliver-webhook-event'));
    // The consumer goes by the machine's clock here: the event is made now.
    const fresh = { ...firstMessage, eventId: newEventId(new Date()) };

    expect(await batch(fresh, 1)).toEqual({ batchItemFailures: [] });
    expect(recordReads(fresh.eventId)).toBe(0);
    await batch(fresh, 2);
    await batch({ ...fresh, attempt: 2 }, 1);
    await batch({ ...fresh, round: 1 }, 1);
    const movedBack = { ...firstMessage, eventId: newEventId(new Date(Date.now() - UNREAD_FIRST_ATTEMPT_MS)) };
    await batch(movedBack, 1);
    expect([recordReads(fresh.eventId), recordReads(movedBack.eventId)]).toEqual([3, 1]);
  });

  it('still POSTs the first attempt it did not read for, and records it', async () => {
    target = await receiver();
    useEndpoint(target.url);
    expect(await deliverEvent(firstMessage, deps({ firstReceive: true }))).toBe('delivered');
    expect([target.received.length, recordReads(), recorded().length]).toEqual([1, 0, 1]);
  });
});

describe('the webhook-events consumer (SQS), a fault of ours', () => {
  it('fails the record for SQS to hand it over again, and says so in an ERROR line: the batch processor keeps its error to itself', async () => {
    ddb.onAnyCommand().rejects(Object.assign(new Error('connect ECONNREFUSED'), { code: 'ECONNREFUSED', $metadata: {} }));
    const batch = sqsEvent([{ body: firstMessage, receiveCount: 3 }]);
    const logs = captureLogLines();
    const answer = await deliverEventBatch(batch, lambdaContext('deliver-webhook-event')).finally(logs.restore);
    expect(answer).toEqual({ batchItemFailures: [{ itemIdentifier: batch.Records[0]!.messageId }] });
    expect(logs.at('ERROR')).toEqual([
      expect.objectContaining({
        message: 'Webhook event not handled; the message comes back',
        messageId: batch.Records[0]!.messageId,
        receiveCount: 3,
        error: expect.objectContaining({ message: 'connect ECONNREFUSED' }),
      }),
    ]);
  });
});
