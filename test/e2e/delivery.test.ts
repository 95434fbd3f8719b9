import { isDeepStrictEqual } from 'node:util';
import { statusWebhook } from '../../lambdas/domain/providers/whatsapp-webhook';
import { scanAll } from '../support/dynamodb';
import { call, queueSettled, SECOND, SECOND_SEED, startTestRuntime, TEST_REPORTS_WINDOW_SECONDS, waitForDeliveryEvents, waitForStatus } from '../support/local-runtime';
import { contractFetch } from '../support/openapi-contract';
import { inboundTextWebhook, postSignedWebhook } from '../support/webhooks';
import { pathOf, routes } from '../../lambdas/routes';

const KEY = SECOND.fullKey;
const TEMPLATE_ID = SECOND.templateId;
let runtime: Awaited<ReturnType<typeof startTestRuntime>>;

beforeAll(async () => {
  runtime = await startTestRuntime({ seedPath: SECOND_SEED });
});
afterAll(() => runtime.stop());

const send = async (to: string) => {
  const { status, body } = await call(runtime.url, 'POST', '/v1/messages', {
    apiKey: KEY,
    body: { channel: 'whatsapp', to, content: { type: 'template', templateId: TEMPLATE_ID, variables: { name: 'Sari' } }, trackingTags: ['e2e'] },
  });
  expect(status).toBe(202);
  return body.dispatchId as string;
};
const statusOf = async (dispatchId: string) => (await call(runtime.url, 'GET', pathOf(routes.getMessage, { dispatchId }), { apiKey: KEY })).body;

const settled = (dispatchId: string, want: string) => waitForStatus(runtime.url, KEY, dispatchId, [want]);

/** The runtime's table once two reads a report window and half a second apart find it the same. */
async function quietTable(): Promise<Record<string, unknown>[]> {
  for (let last = await scanAll(runtime.store); ; ) {
    // Longer than a report window: the projection holds a window's sums until it ends (decision 113).
    await new Promise((resolve) => setTimeout(resolve, TEST_REPORTS_WINDOW_SECONDS * 1_000 + 500));
    const now = await scanAll(runtime.store);
    if (isDeepStrictEqual(now, last)) return now;
    last = now;
  }
}

describe('delivery through the sandbox, over HTTP (docs/api.md#sandbox)', () => {
  it('delivers an ordinary number: sent, then delivered, with ACCEPTED and DELIVERED events', async () => {
    const id = await send('081234561111');
    const body = await settled(id, 'delivered');
    expect(body).toMatchObject({ sentAt: expect.any(String), deliveredAt: expect.any(String), failureCode: null });

    // The events are written from the moves' stream records, a moment after them (decision 112).
    await waitForDeliveryEvents(runtime.url, KEY, '081234561111', id, ['ACCEPTED', 'DELIVERED']);
    const { body: events } = await call(runtime.url, 'POST', '/v1/messages/delivery-status', {
      apiKey: KEY,
      body: { phones: ['0812-3456-1111', '+62 812-3456-1111'], startDate: '2026-01-01', endDate: '2099-12-31' },
    });
    const items = events.items as { phone: string; events: { dispatchId: string; status: string }[] }[];
    expect(items.map((item) => item.phone)).toEqual(['0812-3456-1111', '+62 812-3456-1111']);
    expect(items[0]!.events.filter((event) => event.dispatchId === id).map((event) => event.status)).toEqual(['ACCEPTED', 'DELIVERED']);

    const check = await call(runtime.url, 'GET', `/v1/messages/send-check?phone=6281234561111&templateId=${TEMPLATE_ID}`, { apiKey: KEY });
    expect(check.body).toEqual({ sent: true, dispatchId: id, submittedAt: expect.any(String) });
  }, 15_000);

  it('fails a number ending 0000 with 131026 and a REJECTED event', async () => {
    const id = await send('081234560000');
    expect(await settled(id, 'failed')).toMatchObject({ failureCode: '131026', sentAt: null });
    const body = await waitForDeliveryEvents(runtime.url, KEY, '081234560000', id, ['REJECTED']);
    expect((body.items as { events: unknown[] }[])[0]!.events).toContainEqual({ dispatchId: id, status: 'REJECTED', occurredAt: expect.any(String), failureCode: '131026' });
    const check = await call(runtime.url, 'GET', `/v1/messages/send-check?phone=081234560000&templateId=${TEMPLATE_ID}`, { apiKey: KEY });
    expect(check.body).toEqual({ sent: false, dispatchId: null, submittedAt: null });
  }, 15_000);

  it('retries a number ending 0429 through the queue until the sandbox accepts', async () => {
    const id = await send('081234560429');
    expect(await settled(id, 'delivered')).toMatchObject({ failureCode: null });
  }, 20_000);

  it('delivers a burst of 0429 numbers through their back-offs, none left in processing', async () => {
    // Several consumer batches run at once here; a retry lost between them stranded its dispatch in
    // `processing` until the reconciler's grace (issue 15). Once the queue has nothing left, nothing
    // may be waiting: every dispatch has been through the provider.
    const ids: string[] = [];
    for (let wave = 0; wave < 3; wave++) ids.push(...(await Promise.all(Array.from({ length: 8 }, (_, i) => send(`081234${wave}${i}0429`)))));
    await queueSettled(runtime);
    const statuses = await Promise.all(ids.map(async (id) => (await statusOf(id)).status as string));
    expect(statuses.filter((status) => status === 'queued' || status === 'processing')).toEqual([]);
    for (const id of ids) expect(await settled(id, 'delivered')).toMatchObject({ failureCode: null });
  }, 45_000);

  it('labels every log line with its own invocation, however the functions interleave in the one local process', async () => {
    const written = jest.spyOn(process.stdout, 'write');
    let chunks: unknown[];
    try {
      for (let wave = 0; wave < 2; wave++) await Promise.all(Array.from({ length: 8 }, (_, i) => send(`08123470${wave}${i}01`)));
      await queueSettled(runtime);
    } finally {
      chunks = written.mock.calls.map(([chunk]) => chunk);
      written.mockRestore();
    }
    const lines = chunks.flatMap((chunk) => String(chunk).split('\n')).filter((line) => line.startsWith('{"level"')).map((line) => JSON.parse(line) as Record<string, unknown>);
    // The consumer's lines name the consumer and carry no request's keys; a route's carry its own.
    const attempts = lines.filter((line) => line.message === 'Delivery attempt');
    expect(attempts.length).toBeGreaterThanOrEqual(16);
    expect(attempts.filter((line) => line.function_name !== 'deliver' || 'apiKeyId' in line || 'requestId' in line)).toEqual([]);
    expect(lines.filter((line) => 'apiKeyId' in line && !(String(line.function_name) in routes))).toEqual([]);
  }, 45_000);

  it('settles a number ending 0504 from unknown through the sandbox’s later reports', async () => {
    const id = await send('081234560504');
    expect(await settled(id, 'delivered')).toMatchObject({ sentAt: expect.any(String) });
  }, 15_000);

  it('reports a number ending 0200 as WhatsApp reports a read message: sent, delivered and read, each priced', async () => {
    const id = await send('081234560200');
    expect(await settled(id, 'delivered')).toMatchObject({ sentAt: expect.any(String), deliveredAt: expect.any(String) });
    const stored = async () => (await scanAll(runtime.store)).find((item) => item.pk === `DSP#${id}` && item.sk === 'DSP');
    // The read report follows the delivered one; the test's timeout bounds the wait.
    while (!(await stored())?.readAt) await new Promise((resolve) => setTimeout(resolve, 100));
    expect(await stored()).toMatchObject({ status: 'delivered', readAt: expect.any(String), pricing: { billable: true, category: 'utility', pricingModel: 'PMP' } });
  }, 30_000);
});

describe('ids written in upper case, over HTTP (RFC 9562 reads UUIDs case-insensitively)', () => {
  it('finds the same template, message and send-check answer as the lower-case ids: no false “not sent”', async () => {
    const upper = TEMPLATE_ID.toUpperCase();
    const sent = await call(runtime.url, 'POST', '/v1/messages', {
      apiKey: KEY,
      body: { channel: 'whatsapp', to: '081234561981', content: { type: 'template', templateId: upper, variables: { name: 'Sari' } } },
    });
    expect(sent.status).toBe(202);
    const id = sent.body.dispatchId as string;
    expect(await statusOf(id.toUpperCase())).toMatchObject({ dispatchId: id, templateId: TEMPLATE_ID });

    const check = await call(runtime.url, 'GET', `/v1/messages/send-check?phone=081234561981&templateId=${upper}`, { apiKey: KEY });
    expect(check.body).toEqual({ sent: true, dispatchId: id, submittedAt: expect.any(String) });
    const template = await call(runtime.url, 'GET', pathOf(routes.getTemplate, { templateId: upper }), { apiKey: KEY });
    expect([template.status, template.body.id]).toEqual([200, TEMPLATE_ID]);
  }, 15_000);
});

describe('the WhatsApp webhook over HTTP', () => {
  it('answers Meta’s verification handshake with the challenge as text, and a wrong token with 403', async () => {
    const verify = (token: string) => contractFetch(`${runtime.url}/webhooks/whatsapp?hub.mode=subscribe&hub.verify_token=${token}&hub.challenge=1158201444`);
    const answered = await verify(process.env.WHATSAPP_VERIFY_TOKEN!);
    expect([answered.status, await answered.text()]).toEqual([200, '1158201444']);
    expect((await verify('not-the-token')).status).toBe(403);
  });

  it('changes nothing, anywhere in the table, when statuses are replayed', async () => {
    const id = await send('081234562222');
    const delivered = await settled(id, 'delivered');
    // Its events are written from the stream a moment after the moves (decision 112); then the
    // table is read once nothing is in flight any more (no report, no event of an earlier test).
    await waitForDeliveryEvents(runtime.url, KEY, '081234562222', id, ['ACCEPTED', 'DELIVERED']);
    const before = await quietTable();
    // A replay carries the report's own time: an earlier one is a correction that moves
    // `deliveredAt` back (decision 200), which is not what this test is about.
    const timestamp = String(Math.floor(Date.parse(delivered.deliveredAt as string) / 1000));
    for (const status of ['sent', 'delivered', 'delivered'] as const) {
      const replay = statusWebhook('second-number', [{ id: 'wamid.x', status, timestamp, biz_opaque_callback_data: id }]);
      expect((await postSignedWebhook(runtime.url, replay)).status).toBe(200);
    }
    expect(await statusOf(id)).toEqual(delivered);
    // Events, tag links, report counters and the conversation: none counted twice.
    expect(await scanAll(runtime.store)).toEqual(before);
  }, 15_000);

  it('refuses a forged webhook with 401 and writes nothing', async () => {
    const id = await send('081234563333');
    const before = await settled(id, 'delivered');
    const forged = statusWebhook('second-number', [{ id: 'w', status: 'failed', timestamp: '1767225600', biz_opaque_callback_data: id, errors: [{ code: 1 }] }]);
    const response = await postSignedWebhook(runtime.url, forged, 'not-the-secret');
    expect(response.status).toBe(401);
    expect(await statusOf(id)).toEqual(before);
  }, 15_000);

  it('stores an inbound reply in the contact’s conversation, once', async () => {
    const inbound = inboundTextWebhook({ phoneNumberId: 'second-number', from: '6281234561111', name: 'Sari', id: 'wamid.inbound.1', text: 'Terima kasih!' });
    expect((await postSignedWebhook(runtime.url, inbound)).status).toBe(200);
    expect((await postSignedWebhook(runtime.url, inbound)).status).toBe(200);
    const { ScanCommand } = await import('@aws-sdk/lib-dynamodb');
    const { Items = [] } = await runtime.store.db.send(new ScanCommand({ TableName: runtime.tableName }));
    expect(Items.filter((item) => item.direction === 'inbound')).toEqual([expect.objectContaining({ text: 'Terima kasih!', messageId: 'wamid.inbound.1' })]);
    expect(Items.find((item) => item.entity === 'conversation' && item.contactPhone === '+6281234561111')).toMatchObject({ inboundCount: 1, unreadCount: 1, lastMessagePreview: 'Terima kasih!' });
  });
});
