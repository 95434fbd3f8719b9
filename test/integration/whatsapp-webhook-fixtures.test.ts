import { captureMetrics } from '../support/metrics';
import { randomUUID } from 'node:crypto';
import type { APIGatewayProxyResult } from 'aws-lambda';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { conversationIdFor } from '../../lambdas/domain/conversations/conversation-id';
import { conversationHistory, getConversation } from '../../lambdas/domain/conversations/read-conversations';
import { deliverDispatch } from '../../lambdas/domain/delivery/deliver-dispatch';
import { deliveryEventsForPhones, type DeliveryEvent } from '../../lambdas/domain/delivery/delivery-events';
import { countsAsSent } from '../../lambdas/domain/delivery/transitions';
import { getDispatchById } from '../../lambdas/domain/messages/dispatch-repository';
import { sendTemplateMessage } from '../../lambdas/domain/messages/send-message';
import { ProviderError } from '../../lambdas/domain/providers/provider';
import { signWebhookBody } from '../../lambdas/domain/providers/whatsapp-webhook';
import { saveTemplate } from '../../lambdas/domain/templates/template-repository';
import { listMarketingOptOuts, type MarketingOptOut } from '../../lambdas/domain/workspaces/marketing-opt-out';
import { recordMarketingOptOut } from '../../lambdas/domain/workspaces/marketing-opt-out-changes';
import { saveWorkspace } from '../../lambdas/domain/workspaces/workspace-repository';
import { metricNames } from '../../lambdas/shared/metric-names';
import { pathOf, routes } from '../../lambdas/routes';
import { invokeRoute, lambdaContext, routeEvent, type RouteHandler } from '../support/events';
import { functionUrlEvent } from '../../lib/local/function-url-event';
import type { handler as callbacksHandler } from '../../lambdas/handlers/whatsapp-callbacks';
import { template, TEMPLATE_ID } from '../support/send-fixtures';
import { captureLogLines } from '../support/log-lines';
import { useTableAndQueues } from '../support/sqs';
import { runStreamConsumer } from '../support/stream-consumer';

/**
 * The webhook fixture corpus (test/fixtures/whatsapp-webhooks): payloads shaped as Meta's
 * reference documents them, each with the state it must produce. Every payload is signed and
 * handed to the real route handler as API Gateway would, on DynamoDB Local; every POST must
 * answer 200, and what it could not use shows as WebhookItemsSkipped by reason.
 */

interface Fixture {
  description: string;
  source: string;
  /**
   * Dispatches sent before the posts, each with the wamid WhatsApp gives it (posts name it
   * `{{wamid:<ref>}}`), whether the provider's answer carrying it was lost, and whether it said
   * the message is held (template pacing).
   */
  given: { dispatches?: { ref: string; to: string; wamid: string; answerLost?: boolean; held?: boolean }[]; optOuts?: Omit<MarketingOptOut, 'workspaceId'>[] };
  posts: unknown[];
  expect: {
    dispatches?: Record<string, Record<string, unknown> & { counted?: boolean }>;
    /** A dispatch's delivery events afterwards, exactly, as delivery-status lists them. */
    deliveryEvents?: Record<string, Omit<DeliveryEvent, 'dispatchId'>[]>;
    /** The workspace's marketing opt-outs afterwards, exactly. */
    optOuts?: Omit<MarketingOptOut, 'workspaceId'>[];
    conversation?: Contact & { fields: Record<string, unknown> };
    history?: Contact & { count?: number; messages?: Record<string, unknown>[] };
    skipped?: Record<string, number>;
    /**
     * Business metrics the posts emitted: by name, on the service dimension alone, or
     * `Name{Dimension=value}` on that dimension as well.
     */
    metrics?: Record<string, number>;
    /** The WARN lines the posts wrote, exactly, each by its message and the fields it names. */
    warnings?: Record<string, unknown>[];
  };
}
type Contact = { contact?: string; userId?: string };

const DIR = join(__dirname, '../fixtures/whatsapp-webhooks');
const fixtures = readdirSync(DIR)
  .filter((file) => file.endsWith('.json'))
  .map((file) => [file.replace(/\.json$/, ''), JSON.parse(readFileSync(join(DIR, file), 'utf8')) as Fixture] as const);

const env = useTableAndQueues();
const capture = captureMetrics();
afterAll(() => capture.restore());
let receive: RouteHandler;
let callbacks: typeof callbacksHandler;

beforeAll(async () => {
  // Handlers read their configuration at import, so the queue is named before they load.
  process.env.QUEUE_URL = env.queues.queueUrl;
  ({ handler: receive } = (await import('../../lambdas/handlers/whatsapp-webhook')) as { handler: RouteHandler });
  ({ handler: callbacks } = await import('../../lambdas/handlers/whatsapp-callbacks'));
});

/** A workspace with its own business number, and a neighbour with another. */
async function workspaces() {
  const id = randomUUID().slice(0, 8);
  const own = { id: `ws-fx-${id}`, number: `fx-${id}` };
  const foreign = { id: `ws-fx-other-${id}`, number: `fx-other-${id}` };
  for (const ws of [own, foreign]) {
    await saveWorkspace({ id: ws.id, name: ws.id, rupiahPerCredit: 150, settings: { whatsappPhoneNumberId: ws.number } }, new Date(), env.table);
    await saveTemplate(ws.id, template, env.table);
  }
  return { own, foreign };
}

/**
 * When the given dispatches are sent: a moment before the fixtures' reports (from
 * 2026-01-01T00:00:00Z), as WhatsApp reports a message after it was sent.
 */
const SENT_AT = new Date('2025-12-31T23:59:00.000Z');

/** Sends a dispatch and records the provider's answer (or loses it: the dispatch is then `unknown`). */
async function sentDispatch(workspaceId: string, to: string, answer: string | null, held = false): Promise<string> {
  const { dispatchId } = await sendTemplateMessage(
    { workspaceId, apiClient: { id: randomUUID(), name: 'k' }, to, templateId: TEMPLATE_ID, variables: { name: 'Sari', order: 'A-1' }, tagIds: [], trackingTags: ['promo'], now: SENT_AT },
    { store: env.table, queue: env.queues },
  );
  const provider = { send: () => (answer ? Promise.resolve({ providerMessageId: answer, ...(held ? { held } : {}) }) : Promise.reject(new ProviderError('unknown', 'timeout', 'lost'))), settle: () => Promise.resolve() };
  await deliverDispatch({ dispatchId, workspaceId, receiveCount: 1, maxReceives: 5 }, { providerFor: () => provider, store: env.table, now: () => SENT_AT });
  return dispatchId;
}

const fill = (text: string, values: Record<string, string>) => text.replace(/\{\{([^}]+)\}\}/g, (placeholder, name: string) => values[name] ?? placeholder);
const resolved = <T>(value: T, values: Record<string, string>): T => JSON.parse(fill(JSON.stringify(value), values)) as T;

const signedHeaders = (body: string) => ({ 'Content-Type': 'application/json', 'X-Hub-Signature-256': signWebhookBody(body, process.env.WHATSAPP_APP_SECRET!) });
type Post = (body: string) => Promise<APIGatewayProxyResult>;

/** Through the REST API's route (and the HTTP API's, which hands the same event). */
const restPost: Post = (body) => invokeRoute('whatsappWebhook', receive, routeEvent('whatsappWebhook', { body, headers: signedHeaders(body) }));
/** Through the function URL front door (webhookFrontDoor=functionUrl). */
const functionUrlPost: Post = (body) =>
  callbacks(functionUrlEvent({ method: 'POST', path: pathOf(routes.whatsappWebhook), headers: signedHeaders(body), body }), lambdaContext('whatsappCallbacks'));

describe.each(fixtures)('webhook fixture %s', (_, fixture) => {
  it(fixture.description, () => play(fixture, restPost));
});

// The front door changes the event, not what a report does: two fixtures (statuses, an inbound message) through it.
describe.each(fixtures.filter(([name]) => ['status-sent-delivered-read-in-one-change', 'inbound-replies'].includes(name)))('webhook fixture %s through a function URL', (_, fixture) => {
  it(fixture.description, () => play(fixture, functionUrlPost));
});

/** Posts a fixture's payloads, each signed, and checks the state they leave. */
async function play(fixture: Fixture, post: Post) {
  const { own, foreign } = await workspaces();
  const values: Record<string, string> = { number: own.number, foreignNumber: foreign.number, workspace: own.id };
  for (const { ref, to, wamid, answerLost, held } of fixture.given.dispatches ?? []) {
    // A wamid is unique at WhatsApp; here each fixture's run gets its own.
    values[`wamid:${ref}`] = `${wamid}.${own.number}`;
    values[`dispatch:${ref}`] = await sentDispatch(own.id, to, answerLost ? null : values[`wamid:${ref}`]!, held);
  }
  for (const optOut of fixture.given.optOuts ?? []) await recordMarketingOptOut({ ...optOut, workspaceId: own.id }, env.table);
  // The table's stream consumer writes what the sends' moves made (their events; a wamid's item
  // when a status told it, decision 114) about a second after them, as Meta's next POST finds it.
  await runStreamConsumer(env.table);
  capture.clear();

  const logs = captureLogLines();
  try {
    for (const payload of fixture.posts) {
      const answer = await post(JSON.stringify(resolved(payload, values)));
      expect([answer.statusCode, answer.body]).toEqual([200, JSON.stringify({ success: true })]);
      await runStreamConsumer(env.table);
    }
  } finally {
    logs.restore();
  }

  const expected = resolved(fixture.expect, values);
  for (const [ref, { counted, ...fields }] of Object.entries(expected.dispatches ?? {})) {
    const dispatch = await getDispatchById(values[`dispatch:${ref}`]!, env.table);
    const present = Object.fromEntries(Object.entries(fields).map(([name, value]) => [name, value === 'present' ? expect.any(String) : value]));
    expect(dispatch).toMatchObject(present);
    if (counted !== undefined) expect(countsAsSent(dispatch!.status)).toBe(counted);
  }
  for (const [ref, events] of Object.entries(expected.deliveryEvents ?? {})) {
    const dispatchId = values[`dispatch:${ref}`]!;
    const to = fixture.given.dispatches!.find((given) => given.ref === ref)!.to;
    const [ofPhone] = await deliveryEventsForPhones(own.id, [to], { startDate: '2025-12-31', endDate: '2026-01-02' }, env.table);
    expect(ofPhone!.events.filter((event) => event.dispatchId === dispatchId)).toEqual(events.map((event) => ({ ...event, dispatchId })));
  }
  if (expected.optOuts) {
    expect(await listMarketingOptOuts(own.id, env.table)).toEqual(expected.optOuts.map((optOut) => ({ ...optOut, workspaceId: own.id })));
    expect(await listMarketingOptOuts(foreign.id, env.table)).toEqual([]);
  }
  const conversationOf = (contact: Contact) => conversationIdFor(own.id, 'whatsapp', contact.contact ?? `user:${contact.userId}`);
  if (expected.conversation) {
    expect(await getConversation(own.id, conversationOf(expected.conversation), env.table)).toMatchObject(expected.conversation.fields);
  }
  if (expected.history) {
    const { items } = await conversationHistory(own.id, conversationOf(expected.history), { limit: 100 }, env.table);
    if (expected.history.count !== undefined) expect(items).toHaveLength(expected.history.count);
    if (expected.history.messages) expect(items.slice(0, expected.history.messages.length)).toMatchObject(expected.history.messages);
  }
  for (const [key, count] of Object.entries(expected.metrics ?? {})) {
    const [, name, dimension, value] = /^(\w+)(?:\{(\w+)=([^}]+)\})?$/.exec(key)!;
    expect([key, capture.sum(name!, { service: 'messaging-api', ...(dimension ? { [dimension]: value! } : {}) })]).toEqual([key, count]);
  }
  if (expected.warnings) expect(logs.at('WARN')).toEqual(expected.warnings.map((fields) => expect.objectContaining(fields)));
  const skipped = Object.entries(expected.skipped ?? {});
  // The total (service dimension alone), then each reason on its own line.
  expect(capture.sum(metricNames.webhookItemsSkipped, { service: 'messaging-api' })).toBe(skipped.reduce((sum, [, count]) => sum + count, 0));
  for (const [reason, count] of skipped) expect(capture.sum(metricNames.webhookItemsSkipped, { service: 'messaging-api', SkipReason: reason })).toBe(count);
  // The neighbour's number received nothing of this workspace's: it has no conversation with anyone here.
  expect(await conversationHistory(foreign.id, conversationOf({ contact: '+6281234560001' }), { limit: 1 }, env.table).catch(() => 'none')).toBe('none');
}
