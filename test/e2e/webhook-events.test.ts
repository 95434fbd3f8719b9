import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Webhook } from 'standardwebhooks';
import { pathOf, routes } from '../../lambdas/routes';
import { call, SECOND, SECOND_SEED, startTestRuntime, waitForStatus } from '../support/local-runtime';
import { assertDocumentedEvent } from '../support/openapi-contract';

/**
 * Webhook events end to end over the local runtime (docs/api.md#webhook-events): a send's status
 * changes leave through the outbox, the table's stream, the webhook-events queue and its consumer
 * to a receiver on this machine, which verifies them with the standardwebhooks package.
 */
const OWNER = SECOND.fullKey;
const NEIGHBOUR = 'msk_test_neighbour_events_0001';
// One refusal shows the retry under the same webhook-id; the schedule itself is unit-tested
// (test/unit/webhooks), and a second refusal would add its 30 s to every run.
const REFUSALS = 1;

interface Delivery {
  headers: Record<string, string>;
  body: string;
  status: number;
}

/** A receiver that refuses the first `refusals` attempts of the first event it sees, and takes everything else. */
async function receiver(refusals = REFUSALS) {
  const deliveries: Delivery[] = [];
  let refusedId: string | undefined;
  const server: Server = createServer((request, response) => {
    let body = '';
    request.on('data', (chunk: Buffer) => (body += chunk.toString()));
    request.on('end', () => {
      const id = String(request.headers['webhook-id']);
      refusedId ??= id;
      const status = id === refusedId && deliveries.filter((delivery) => delivery.headers['webhook-id'] === id).length < refusals ? 503 : 204;
      deliveries.push({ headers: request.headers as Record<string, string>, body, status });
      response.writeHead(status).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return { url: `http://127.0.0.1:${port}/hooks`, deliveries, refusedId: () => refusedId, close: () => new Promise((resolve) => server.close(resolve)) };
}

async function until<T>(check: () => T | undefined): Promise<T> {
  for (;;) {
    const value = check();
    if (value !== undefined) return value;
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}

let runtime: Awaited<ReturnType<typeof startTestRuntime>>;
let hooks: Awaited<ReturnType<typeof receiver>>;
let neighbourHooks: Awaited<ReturnType<typeof receiver>>;

beforeAll(async () => {
  runtime = await startTestRuntime({ seedPath: SECOND_SEED });
  const { saveApiKey } = await import('../../lambdas/domain/api-keys/api-key-repository');
  await saveApiKey(NEIGHBOUR, { workspaceId: 'ws-neighbour', name: 'hooks', scopes: ['webhooks:manage'] }, new Date(), runtime.store);
  hooks = await receiver();
  neighbourHooks = await receiver();
}, 60_000);
afterAll(async () => {
  await runtime.stop();
  await hooks.close();
  await neighbourHooks.close();
});

describe('webhook events over the local runtime', () => {
  it('delivers every status change of a send, signed; a refused event comes again under the same webhook-id until taken', async () => {
    const made = await call(runtime.url, 'POST', pathOf(routes.createWebhookEndpoint), { apiKey: OWNER, body: { url: hooks.url, events: ['message.status.updated'] } });
    expect(made.status).toBe(201);
    const endpointId = String(made.body.id);
    const secret = String(made.body.secret);
    const neighbour = await call(runtime.url, 'POST', pathOf(routes.createWebhookEndpoint), { apiKey: NEIGHBOUR, body: { url: neighbourHooks.url } });
    expect(neighbour.status).toBe(201);

    const sent = await call(runtime.url, 'POST', pathOf(routes.sendMessage), {
      apiKey: OWNER,
      body: { channel: 'whatsapp', to: '081234567890', content: { type: 'template', templateId: SECOND.templateId, variables: { name: 'Budi' } } },
    });
    expect(sent.status).toBe(202);
    const dispatchId = String(sent.body.dispatchId);
    const final = await waitForStatus(runtime.url, OWNER, dispatchId, ['delivered']);
    expect(final.sequence).toBe(4);

    // processing, sent, delivered: one event each, the refused one taken on its second attempt, 5 s later.
    const taken = await until(() => {
      const ok = hooks.deliveries.filter((delivery) => delivery.status === 204);
      return new Set(ok.map((delivery) => delivery.headers['webhook-id'])).size === 3 ? ok : undefined;
    });
    const refused = hooks.refusedId()!;
    expect(hooks.deliveries.filter((delivery) => delivery.headers['webhook-id'] === refused).map((delivery) => delivery.status)).toEqual([503, 204]);
    expect(new Set(hooks.deliveries.filter((delivery) => delivery.headers['webhook-id'] === refused).map((delivery) => delivery.body)).size).toBe(1);

    const events = taken.map((delivery) => new Webhook(secret).verify(delivery.body, delivery.headers) as { id: string; type: string; data: Record<string, unknown> });
    // Each body as docs/openapi.json's webhooks describe it, for a receiver generated from the document.
    for (const delivery of taken) assertDocumentedEvent(delivery.body);
    expect(events.map((event) => event.type)).toEqual(['message.status.updated', 'message.status.updated', 'message.status.updated']);
    const bySequence = events.sort((a, b) => Number(a.data.sequence) - Number(b.data.sequence));
    expect(bySequence.map((event) => [event.data.sequence, event.data.status])).toEqual([
      [2, 'processing'],
      [3, 'sent'],
      [4, 'delivered'],
    ]);
    expect(bySequence.at(-1)!.data).toEqual(final);
    // Order is not guaranteed: the refused event is whichever reached the receiver first.
    expect(bySequence.map((event) => event.id)).toContain(refused);

    const deliveries = await call(runtime.url, 'GET', pathOf(routes.listWebhookDeliveries, { id: endpointId }), { apiKey: OWNER });
    expect(deliveries.status).toBe(200);
    expect(deliveries.body.items).toEqual(
      expect.arrayContaining([expect.objectContaining({ eventId: refused, type: 'message.status.updated', state: 'delivered', attempts: 2, lastStatusCode: 204, nextAttemptAt: null })]),
    );

    // The neighbour's endpoint takes every type, and got none of ws-second's events; nor can it read them.
    expect(neighbourHooks.deliveries).toEqual([]);
    const foreign = await call(runtime.url, 'GET', pathOf(routes.listWebhookDeliveries, { id: endpointId }), { apiKey: NEIGHBOUR });
    expect([foreign.status, foreign.body.error]).toEqual([404, 'not_found']);
  }, 120_000);

  it('sends a test event to the one endpoint named, and resends an event under its own webhook-id', async () => {
    const { body: listed } = await call(runtime.url, 'GET', pathOf(routes.listWebhookEndpoints), { apiKey: OWNER });
    const endpointId = String((listed.items as { id: string }[])[0]!.id);
    const before = hooks.deliveries.length;

    const ping = await call(runtime.url, 'POST', pathOf(routes.testWebhookEndpoint, { id: endpointId }), { apiKey: OWNER });
    expect(ping.status).toBe(202);
    const pinged = await until(() => hooks.deliveries.slice(before).find((delivery) => delivery.headers['webhook-id'] === ping.body.eventId));
    expect(JSON.parse(pinged.body)).toMatchObject({ id: ping.body.eventId, type: 'webhook.test', data: { endpointId } });
    assertDocumentedEvent(pinged.body);

    const refused = hooks.refusedId()!;
    const again = await call(runtime.url, 'POST', pathOf(routes.resendWebhookEvent, { id: endpointId, eventId: refused }), { apiKey: OWNER });
    expect([again.status, again.body]).toEqual([202, { eventId: refused }]);
    await until(() => (hooks.deliveries.filter((delivery) => delivery.headers['webhook-id'] === refused).length === REFUSALS + 2 ? true : undefined));
    expect(neighbourHooks.deliveries).toEqual([]);
  }, 60_000);

  // docs/api.md, "Resend": resends of one event queued before the first of them is attempted are one
  // resend. An integration retrying a resend whose answer it did not see (or two people pressing
  // "resend") asks twice at once; the consumer POSTed it twice more (the integration developer review).
  it('resends an event asked for twice at once once', async () => {
    const takes = await receiver(0);
    try {
      const made = await call(runtime.url, 'POST', pathOf(routes.createWebhookEndpoint), { apiKey: OWNER, body: { url: takes.url } });
      const endpointId = String(made.body.id);
      const ping = await call(runtime.url, 'POST', pathOf(routes.testWebhookEndpoint, { id: endpointId }), { apiKey: OWNER });
      const eventId = String(ping.body.eventId);
      const posts = () => takes.deliveries.filter((delivery) => delivery.headers['webhook-id'] === eventId).length;
      await until(() => (posts() === 1 ? true : undefined));

      const answers = await Promise.all([1, 2].map(() => call(runtime.url, 'POST', pathOf(routes.resendWebhookEvent, { id: endpointId, eventId }), { apiKey: OWNER })));
      expect(answers.map((answer) => answer.status)).toEqual([202, 202]);
      await until(() => (posts() >= 2 ? true : undefined));
      // Time for a second POST of the resend to arrive, had one been made: both messages are received within a poll.
      await new Promise((resolve) => setTimeout(resolve, 3_000));
      expect(posts()).toBe(2);
    } finally {
      await takes.close();
    }
  }, 60_000);
});
