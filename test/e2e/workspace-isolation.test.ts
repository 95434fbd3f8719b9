import { call, type HttpResponse, SECOND, SECOND_SEED, equalTo, startTestRuntime, waitForAnswer, waitForDeliveryEvents, waitForStatus } from '../support/local-runtime';
import { inboundTextWebhook, postSignedWebhook } from '../support/webhooks';
import { pathOf, routes } from '../../lambdas/routes';
import { wibDay } from '../../lambdas/domain/time/wib';

/**
 * The workspace-isolation matrix (issue 7): for every endpoint that takes an id, a cursor, a
 * phone or a tag, another workspace's key gets exactly the answer it gets for an id, phone or
 * tag that exists nowhere — never the owner's data, never a different status. Each row also
 * shows the owner seeing the data, so a row cannot pass by probing nothing.
 */
const OWNER = SECOND.fullKey;
const NEIGHBOUR = SECOND.neighbourKey;
const TEMPLATE_ID = SECOND.templateId;
const VERSION_ID = SECOND.versionId;
const PHONE = '081234569876';
const OTHER_PHONE = '081234565432';
const TAG = 'isolation-probe';
const NOWHERE = {
  id: '00000000-0000-4000-8000-0000000000f1',
  version: '00000000-0000-4000-8000-0000000000f2',
  template: '00000000-0000-4000-8000-0000000000f3',
  conversation: '00000000-0000-4000-8000-0000000000f4',
  phone: '081299990000',
  tag: 'tag-nobody-used',
};

let runtime: Awaited<ReturnType<typeof startTestRuntime>>;
const owned = { dispatchId: '', conversationId: '', conversationCursor: '', historyCursor: '' };
// From the WIB day the owner's sends start on to today's: two days when the run crosses midnight (17:00 UTC).
const FIRST_DAY = wibDay(new Date());
const today = () => wibDay(new Date());

beforeAll(async () => {
  runtime = await startTestRuntime({ seedPath: SECOND_SEED });
  // The owner's data: two conversations (so lists page), a delivered tagged message, a reply.
  for (const to of [OTHER_PHONE, PHONE]) {
    const sent = await call(runtime.url, 'POST', '/v1/messages', {
      apiKey: OWNER,
      body: { channel: 'whatsapp', to, content: { type: 'template', templateId: TEMPLATE_ID, variables: { name: 'Dewi' } }, trackingTags: [TAG] },
    });
    owned.dispatchId = sent.body.dispatchId as string;
    await waitForStatus(runtime.url, OWNER, owned.dispatchId, ['delivered']);
    await waitForDeliveryEvents(runtime.url, OWNER, to, owned.dispatchId, ['ACCEPTED', 'DELIVERED']);
  }
  // The tag's rollups are the report projection's, written as its window ends (decision 113).
  const counted = { items: [{ trackingTag: TAG, dispatchCount: 2 }], pagination: { page: 1, limit: 50, totalItems: 1, totalPages: 1 } };
  expect((await waitForAnswer(runtime.url, OWNER, `/v1/messages/tracking-tags?${period()}&prefix=${TAG}`, equalTo(counted))).body).toEqual(counted);
  const reply = inboundTextWebhook({ phoneNumberId: 'second-number', from: '6281234569876', name: 'Dewi', id: 'wamid.isolation.1', text: 'Terima kasih', at: new Date(Date.now() + 1_000) });
  expect((await postSignedWebhook(runtime.url, reply)).status).toBe(200);

  const conversations = await call(runtime.url, 'GET', '/v1/conversations?limit=1', { apiKey: OWNER });
  owned.conversationId = (conversations.body.items as { id: string }[])[0]!.id;
  owned.conversationCursor = conversations.body.nextCursor as string;
  const history = await call(runtime.url, 'GET', `${pathOf(routes.conversationMessages, { conversationId: owned.conversationId })}?limit=1`, { apiKey: OWNER });
  owned.historyCursor = history.body.nextCursor as string;
  expect([owned.conversationCursor, owned.historyCursor]).toEqual([expect.any(String), expect.any(String)]);
}, 60_000);
afterAll(() => runtime.stop());

interface Probe {
  method: 'GET' | 'POST';
  path: string;
  body?: unknown;
}

interface Row {
  endpoint: string;
  /** The request naming the owner's data (`owned`) or data that exists nowhere (`NOWHERE`). */
  probe(subject: { id: string; phone: string; tag: string; version: string; template: string; conversation: string; cursor: string }): Probe;
  /** What proves the owner's own key sees data through this probe. */
  ownerSees(response: HttpResponse): void;
}

const period = () => `startDate=${FIRST_DAY}&endDate=${today()}`;
const items = (response: HttpResponse) => response.body.items as unknown[];

const rows: Row[] = [
  {
    endpoint: 'GET /v1/message-templates/{templateId}',
    probe: (s) => ({ method: 'GET', path: pathOf(routes.getTemplate, { templateId: s.template }) }),
    ownerSees: (r) => expect(r.body).toMatchObject({ id: TEMPLATE_ID }),
  },
  {
    endpoint: 'POST /v1/message-templates/{templateVersionId}/preview',
    probe: (s) => ({ method: 'POST', path: pathOf(routes.previewTemplate, { templateId: s.version }), body: { variables: [{ name: 'name', value: 'Dewi' }] } }),
    ownerSees: (r) => expect(r.body).toEqual({ templateVersionId: VERSION_ID, preview: 'Hai Dewi' }),
  },
  {
    endpoint: 'POST /v1/messages (content.templateId)',
    probe: (s) => ({ method: 'POST', path: '/v1/messages', body: { channel: 'whatsapp', to: NOWHERE.phone, content: { type: 'template', templateId: s.template, variables: { name: 'x' } }, trackingTags: ['isolation-send'] } }),
    ownerSees: (r) => expect(r.status).toBe(202),
  },
  {
    endpoint: 'GET /v1/messages/{dispatchId}',
    probe: (s) => ({ method: 'GET', path: pathOf(routes.getMessage, { dispatchId: s.id }) }),
    ownerSees: (r) => expect(r.body).toMatchObject({ dispatchId: owned.dispatchId, status: 'delivered' }),
  },
  {
    endpoint: 'POST /v1/messages/delivery-status (phones)',
    probe: (s) => ({ method: 'POST', path: '/v1/messages/delivery-status', body: { phones: [s.phone], startDate: FIRST_DAY, endDate: today() } }),
    ownerSees: (r) => expect((items(r)[0] as { events: unknown[] }).events.length).toBeGreaterThan(0),
  },
  {
    endpoint: 'GET /v1/messages/send-check (phone, templateId)',
    probe: (s) => ({ method: 'GET', path: `/v1/messages/send-check?phone=${s.phone}&templateId=${s.template}` }),
    ownerSees: (r) => expect(r.body).toMatchObject({ sent: true, dispatchId: owned.dispatchId }),
  },
  {
    endpoint: 'GET /v1/messages/tracking-tags (prefix)',
    probe: (s) => ({ method: 'GET', path: `/v1/messages/tracking-tags?${period()}&prefix=${s.tag}` }),
    ownerSees: (r) => expect(items(r)).toEqual([{ trackingTag: TAG, dispatchCount: 2 }]),
  },
  {
    endpoint: 'GET /v1/messages/tracking-report/summary (trackingTags)',
    probe: (s) => ({ method: 'GET', path: `/v1/messages/tracking-report/summary?${period()}&trackingTags=${s.tag}` }),
    ownerSees: (r) => expect(items(r)).toEqual([expect.objectContaining({ trackingTag: TAG, dispatchCount: 2 })]),
  },
  {
    endpoint: 'GET /v1/messages/tracking-report/dispatches (trackingTags)',
    probe: (s) => ({ method: 'GET', path: `/v1/messages/tracking-report/dispatches?${period()}&trackingTags=${s.tag}` }),
    ownerSees: (r) => expect(items(r)).toHaveLength(2),
  },
  {
    endpoint: 'GET /v1/conversations (phone)',
    probe: (s) => ({ method: 'GET', path: `/v1/conversations?phone=${s.phone}` }),
    ownerSees: (r) => expect(items(r)).toEqual([expect.objectContaining({ id: owned.conversationId })]),
  },
  {
    endpoint: 'GET /v1/conversations (cursor)',
    probe: (s) => ({ method: 'GET', path: `/v1/conversations?limit=1&cursor=${encodeURIComponent(s.cursor)}` }),
    ownerSees: (r) => expect(items(r)).toHaveLength(1),
  },
  {
    endpoint: 'GET /v1/conversations/{conversationId}',
    probe: (s) => ({ method: 'GET', path: pathOf(routes.getConversation, { conversationId: s.conversation }) }),
    ownerSees: (r) => expect(r.body).toMatchObject({ id: owned.conversationId, inboundCount: 1 }),
  },
  {
    endpoint: 'GET /v1/conversations/{conversationId}/messages',
    probe: (s) => ({ method: 'GET', path: pathOf(routes.conversationMessages, { conversationId: s.conversation }) }),
    ownerSees: (r) => expect(items(r)).toHaveLength(2),
  },
];

/** The owner's identifiers; and, for comparison, identifiers of nothing. */
const ownersData = () => ({ id: owned.dispatchId, phone: PHONE, tag: TAG, version: VERSION_ID, template: TEMPLATE_ID, conversation: owned.conversationId, cursor: owned.conversationCursor });
const nothing = () => ({ ...NOWHERE, cursor: forged(owned.conversationCursor) });
/** A well-formed cursor no workspace was ever given: the owner's, with its signature altered. */
const forged = (cursor: string) => `${cursor.slice(0, -2)}${cursor.endsWith('AA') ? 'BB' : 'AA'}`;

const send = (probe: Probe, apiKey: string) => call(runtime.url, probe.method, probe.path, { apiKey, ...(probe.body !== undefined ? { body: probe.body } : {}) });

/**
 * The answer with every identifier of the probe put back to the owner's: equal for a foreign
 * and a non-existent subject exactly when the foreign one gave nothing away.
 */
function normalised(response: HttpResponse, subject: ReturnType<typeof ownersData>): string {
  let text = JSON.stringify({ status: response.status, body: { ...response.body, requestId: undefined } });
  for (const [name, value] of Object.entries(subject)) text = text.split(value).join(`<${name}>`);
  return text;
}

describe('another workspace’s key, endpoint by endpoint', () => {
  it.each(rows.map((row) => [row.endpoint, row] as const))('%s: the same answer as for data that does not exist', async (_, row) => {
    row.ownerSees(await send(row.probe(ownersData()), OWNER));

    const foreign = await send(row.probe(ownersData()), NEIGHBOUR);
    const missing = await send(row.probe(nothing()), NEIGHBOUR);
    expect(foreign.status).toBeLessThan(500);
    expect(normalised(foreign, ownersData())).toBe(normalised(missing, nothing()));
    // Nothing of the owner's leaks, under any field name.
    const leaked = JSON.stringify(foreign.body);
    for (const secret of [owned.dispatchId, owned.conversationId, 'Dewi', '6281234569876']) expect(leaked).not.toContain(secret);
  });

  it('a history cursor of the owner’s conversation gets the neighbour the same answer as under a conversation that does not exist', async () => {
    const owner = await call(runtime.url, 'GET', `${pathOf(routes.conversationMessages, { conversationId: owned.conversationId })}?limit=1&cursor=${encodeURIComponent(owned.historyCursor)}`, { apiKey: OWNER });
    expect(items(owner)).toHaveLength(1);
    const foreign = await call(runtime.url, 'GET', `${pathOf(routes.conversationMessages, { conversationId: owned.conversationId })}?limit=1&cursor=${encodeURIComponent(owned.historyCursor)}`, { apiKey: NEIGHBOUR });
    const missing = await call(runtime.url, 'GET', `${pathOf(routes.conversationMessages, { conversationId: NOWHERE.conversation })}?limit=1&cursor=${encodeURIComponent(owned.historyCursor)}`, { apiKey: NEIGHBOUR });
    expect([foreign.status, foreign.body.error, foreign.body.message]).toEqual([missing.status, missing.body.error, missing.body.message]);
    // The cursor is checked against workspace and conversation before anything is read.
    expect(foreign.status).toBe(422);
  });

  it('the workspace-wide lists show the neighbour none of the owner’s records', async () => {
    for (const path of ['/v1/message-templates', '/v1/conversations', `/v1/messages/tracking-tags?${period()}`, `/v1/messages/tracking-report/dispatches?${period()}&scope=WORKSPACE`]) {
      const owner = await call(runtime.url, 'GET', path, { apiKey: OWNER });
      const foreign = await call(runtime.url, 'GET', path, { apiKey: NEIGHBOUR });
      expect(items(owner).length).toBeGreaterThan(0);
      const leaked = JSON.stringify(foreign.body);
      for (const secret of [TEMPLATE_ID, owned.dispatchId, owned.conversationId, TAG, 'Dewi']) expect(leaked).not.toContain(secret);
    }
  });
});
