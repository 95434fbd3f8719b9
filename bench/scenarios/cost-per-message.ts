import { randomUUID } from 'node:crypto';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient, GetCommand } from '@aws-sdk/lib-dynamodb';
import { conversationIdFor } from '../../lambdas/domain/conversations/conversation-id';
import { pathOf, routes } from '../../lambdas/routes';
import { dispatchQueueSettings } from '../../lambdas/shared/dispatch-queue-settings';
import { webhookQueueSettings } from '../../lambdas/shared/webhook-queue-settings';
import { reportProjectionSettings } from '../../lambdas/shared/stream-consumer-settings';
import type { Store } from '../../lambdas/shared/store';
import { keys } from '../../lambdas/shared/table';
import { FUNCTION_MEMORY_MB } from '../../lib/constructs/app-function';
import { freePort } from '../../lib/local/free-port.cjs';
import { ACCESS_LOG_FORMAT } from '../../lib/constructs/messaging-api';
import type { LocalRuntime } from '../../lib/local/runtime';
import { PRICES_DATE, PRICES_REGION, prices } from '../aws-prices';
import { ratioNumbers, valueNumbers, verdictOf, type FunctionMeter, type Invocation, type Row } from '../harness';
import { measureLeanWrites } from '../prototypes/lean-write-side';

const MESSAGES = 200;
/** Sent after MESSAGES, with one webhook endpoint registered: what events to an integration add. */
const EVENT_MESSAGES = 100;
/**
 * Sent after those, each with an Idempotency-Key of its own, as the README's example sends: what the
 * key adds to a send (rows 8l, 8m).
 */
const KEYED_MESSAGES = 100;
/** Numbers are 0812<n>0200, n from this on; every message of the row has its own. */
const FIRST_NUMBER = 1000;
/** One send at a time: each invocation's wall time is then its own, as on Lambda, not a share of a busy process. */
const CONCURRENCY = 1;
const TARGET_DOLLARS = 15;
const TARGET_WRITE_RATIO = 1.5;
/** bench/run.ts's workspace for rows 3 and 8. */
const BENCH_WORKSPACE = 'ws-bench-throughput';
const DEMO_TEMPLATE = '7b0c5c3e-0000-4000-8000-000000000001';
/** The sandbox reports numbers ending so as WhatsApp reports a read message (docs/api.md#sandbox). */
const READ_ENDING = '0200';

/**
 * Round-trip assumptions, where the local runtime cannot measure what AWS would bill:
 * - the Graph API answers a send in about 250 ms (docs/decisions.md 58); the consumer calls it for a
 *   batch's records at once, so a batch of 10 waits about that long once;
 * - the event source fills batches of `batchSize` (at 10 messages a second or more; its 1 s window);
 * - an AWS call takes AWS_CALL_MS in-region: a function's billed time is its measured time less
 *   what it spent waiting on DynamoDB Local and the emulator (slower on this shared machine than
 *   DynamoDB in-region), plus AWS_CALL_MS per call.
 */
const GRAPH_ROUND_TRIP_MS = 250;
const AWS_CALL_MS = 8;
const BATCH = dispatchQueueSettings.batchSize;
/**
 * Secrets Manager and KMS are not on the local runtime: they are modelled. The WhatsApp secret is
 * read at most every 5 minutes per container (lambdas/domain/providers/whatsapp-credentials.ts), by
 * the deliver and webhook functions; DynamoDB asks KMS for the table key about as often per
 * container of each function that uses the table; one container per function; a million
 * messages spread over 30 days.
 */
const CACHE_MINUTES = 5;
const MONTH_MINUTES = 30 * 24 * 60;
const SECRET_READING_FUNCTIONS = 2;
/** The send, the deliver consumer, the webhook, the stream publisher (its endpoint-gate read) and the report projection. */
const TABLE_FUNCTIONS = 5;

const WRITE_COMMANDS = new Set(['PutCommand', 'UpdateCommand', 'DeleteCommand', 'TransactWriteCommand', 'BatchWriteCommand', 'PutItemCommand', 'UpdateItemCommand', 'DeleteItemCommand', 'TransactWriteItemsCommand', 'BatchWriteItemCommand']);

/**
 * The functions a delivered message passes through, and the API requests that invoke them. The
 * stream publisher is on every message's path: each update of its dispatch is a stream record it
 * takes, and drops when the workspace has no endpoint (decision 89). So is the report projection:
 * the move that makes it count as sent is a record it takes (decision 113).
 */
const PATH = { send: 'sendMessage', deliver: 'deliver', webhook: 'whatsappWebhook', publish: 'publish-webhook-events', project: 'project-reports' } as const;
/** What a workspace with a webhook endpoint adds (decisions 77–79): the event consumer, and the publisher's fan-out (the difference of the two runs). */
const EVENTS_PATH = { deliver: 'deliver-webhook-event' } as const;
/**
 * Batches on the events path, deployed (lib/constructs/webhook-pipeline.ts): the publisher's stream
 * source takes up to 100 records in a 1 s window, so at 10 messages a second it gets about 10
 * messages' records at once; the consumer takes batches of `webhookQueueSettings.batchSize` and
 * posts a batch's events at once, waiting on the receiver about RECEIVER_ROUND_TRIP_MS once.
 */
const PUBLISH_MESSAGES_PER_BATCH = 10;
/**
 * The report projection's source (lib/constructs/report-projection.ts) batches as the publisher's,
 * one record a message, and at 10 messages a second a window holds this many messages, which share
 * its last invocation. Its writes are measured as the run made them: the run's windows hold about
 * as many (200 messages in some 15 s).
 */
const REPORT_MESSAGES_PER_WINDOW = 10 * reportProjectionSettings.tumblingWindowSeconds;
const RECEIVER_ROUND_TRIP_MS = 100;

/**
 * Rows 8h and 8i: the two deploy settings for steady traffic (docs/deploy.md, "Table capacity").
 * Provisioned capacity is paid by the hour whether used or not; auto scaling keeps it near its
 * target utilisation (the setting's default), so a unit used costs the hour's price over that
 * share of the hour's seconds. Idle minimums and bursts above the target are left out: the rows
 * price traffic steady enough to keep the capacity busy. `systemLogLevel=WARN` drops Lambda's
 * platform records.
 */
const PROVISIONED_UTILIZATION = 0.7;
const provisionedWriteUnit = prices.dynamodbWriteCapacityHour / (3600 * PROVISIONED_UTILIZATION);
const provisionedReadUnit = prices.dynamodbReadCapacityHour / (3600 * PROVISIONED_UTILIZATION);

/**
 * The fewest write units a delivered, read message with one tracking tag needs in this design
 * (docs/cost.md "The write floor"): every item and index entry the contract's reads need, each under
 * 1 KB, written once, in the transactions its guarantees need (a transactional write costs 2);
 * a delivery event is put by the stream consumer from its move's record (decision 112), the wamid
 * item by the deliver consumer before the sent move (decision 196), a tag link and the rollups by
 * the report projection (decision 113).
 */
export const WRITE_FLOOR = [
  { write: 'send: dispatch + its pending index entry (transaction; send-check reads the conversation message, decision 115)', units: 2 * 2 },
  { write: 'send: conversation message (transaction)', units: 2 },
  { write: 'send: conversation + its activity index entry (transaction)', units: 2 * 2 },
  { write: 'claim: the dispatch, no index entry touched', units: 1 },
  { write: 'sent: dispatch, its pending entry moved to the sent-by-day index (delete + put), alone (decision 114)', units: 3 },
  { write: 'sent: the wamid item (put by the deliver consumer before the sent move, decision 196)', units: 1 },
  { write: 'sent: ACCEPTED event, in its number’s partition (put by the stream consumer, decision 112)', units: 1 },
  { write: 'sent: tag link, in its tag’s partition (put by the report projection, decision 113)', units: 1 },
  {
    write: `sent: day, tag and day-tag rollups, summed over the report projection's window: one transaction of their three sums and its marker a window, of ${REPORT_MESSAGES_PER_WINDOW} messages at 10 a second (decision 113)`,
    units: (2 * 4) / REPORT_MESSAGES_PER_WINDOW,
  },
  { write: 'delivered: dispatch (alone: its event is not in the write, decision 112)', units: 1 },
  { write: 'delivered: DELIVERED event, in its number’s partition (put by the stream consumer)', units: 1 },
  { write: 'read: readAt on the dispatch (with the pricing Meta sent)', units: 1 },
] as const;

interface Component {
  name: string;
  quantity: string;
  dollars: number;
}

/**
 * Row 8: what one million delivered messages cost at AWS list prices, from what a run of sandbox
 * sends measures on the local runtime: each function's invocations, durations, DynamoDB capacity
 * and log bytes, for a send, its delivery, and WhatsApp's three reports (sent, delivered, read).
 */
export async function costPerMessage(options: { runtime: LocalRuntime; apiKey: string; functions: FunctionMeter; store: Store; log: (line: string) => void }): Promise<Row[]> {
  const plain = await measurePath(options, MESSAGES, FIRST_NUMBER);
  const base = pricePath(plain.invocations, plain.dispatchIds.length, options.log);

  // The same again with one endpoint taking every event, as an integration would register it.
  const receiver = await eventReceiver(options.store);
  let withEvents: PathPrice;
  let events: EventsPrice;
  try {
    const measured = await measurePath(options, EVENT_MESSAGES, FIRST_NUMBER + MESSAGES, receiver);
    const n = measured.dispatchIds.length;
    withEvents = pricePath(measured.invocations, n, () => undefined);
    events = priceEvents(measured.invocations, n, receiver.received.length / n);
  } finally {
    await receiver.stop();
  }
  // What the events add to the path itself: the publisher's fan-out (the endpoints' read, the queue
  // sends); the status writes carry no event of their own (decision 89).
  const eventsOnPath = withEvents.total - base.total;
  const eventsDollars = eventsOnPath + events.total;
  const eventsWriteUnits = withEvents.writeUnits - base.writeUnits + events.writeUnits;
  const eventsComponent: Component = {
    name: 'integration events, one endpoint',
    quantity: `${events.perMessage.toFixed(1)} events: +${eventsWriteUnits.toFixed(1)} WRU, ${events.summary}`,
    dollars: eventsDollars / 1e6,
  };
  options.log(`  integration events per message: ${events.perMessage.toFixed(2)} (path ${signed(eventsOnPath, 2, '$')}/M, ${signed(withEvents.writeUnits - base.writeUnits, 1)} WRU; ${events.summary}: $${events.total.toFixed(2)}/M)`);

  // The same sends again, each with an Idempotency-Key; nothing but the send function handles the key.
  const keyedRun = await measurePath(options, KEYED_MESSAGES, FIRST_NUMBER + MESSAGES + EVENT_MESSAGES, undefined, true);
  const keyed = priceKeyedSend(plain, keyedRun);
  options.log(`  an Idempotency-Key on every send: ${keyed.note}`);

  // The prototype of the lean write side (bench/prototypes/lean-write-side.ts), its writes measured.
  options.log('  prototype: the lean write side…');
  const lean = await priceLeanWriteSide(options.store, plain.dispatchIds[0]!, base);

  const total = base.total + eventsDollars;
  const eventsReadUnits = withEvents.readUnits - base.readUnits + events.readUnits;
  const platformBytes = base.platformBytes + events.platformBytes;
  const steady = steadyTraffic({ writeUnits: base.writeUnits + eventsWriteUnits, readUnits: base.readUnits + eventsReadUnits, platformBytes });
  const leanSteady = steadyTraffic({ writeUnits: lean.writes.perMessage + eventsWriteUnits, readUnits: base.readUnits + eventsReadUnits, platformBytes });
  const withFrontDoor = (price: number) => total - base.webhookRest + base.webhooksPerMessage * price * 1e6;
  // A function URL: no request price and no access log line; the function's own work is the same (its adapter is a few object copies).
  const webhookAccessLogDollars = (base.webhookAccessLogBytes / 1e9) * prices.logsIngestedGb * 1e6;
  const functionUrlSaving = withFrontDoor(prices.functionUrlRequest) - total - webhookAccessLogDollars;
  const functionUrlChanges = `API Gateway (REST): WhatsApp reports ${base.webhooksPerMessage.toFixed(2)} req ${signed(-base.webhookRest, 2, '$')}; CloudWatch Logs ${Math.round(base.webhookAccessLogBytes)} B of access log lines ${signed(-webhookAccessLogDollars, 2, '$')}`;
  const floor = sum(WRITE_FLOOR, (w) => w.units);
  const writeRatio = base.writeUnits / floor;
  const dollars = (value: number) => `$${value.toFixed(2)}`;
  /** A row's price per million messages, held to the target; its baseline the row it starts from, if any. */
  const priced = (row: { id: string; what: string; note?: string }, measured: number, startsFrom?: number): Row => {
    const numbers = valueNumbers('USD per million messages', measured, TARGET_DOLLARS, startsFrom === undefined ? {} : { baseline: startsFrom });
    return { ...row, figure: dollars(measured), target: `≤ $${TARGET_DOLLARS}`, verdict: verdictOf(numbers), numbers };
  };
  const writeNumbers = ratioNumbers('write request units per message', base.writeUnits, floor, TARGET_WRITE_RATIO);
  return [
    priced(
      {
        id: '8a',
        what: `cost of 1 million delivered and read messages, AWS list prices (${PRICES_REGION}, ${PRICES_DATE}), REST API for the reports (the stack's default), events pushed to one webhook endpoint`,
        note: [...base.components, eventsComponent].map((c) => `${c.name} ${c.quantity} ${dollars(c.dollars * 1e6)}`).join('; '),
      },
      total,
    ),
    priced({ id: '8b', what: 'the same, WhatsApp reports through the HTTP API front door (webhookFrontDoor=httpApi)' }, withFrontDoor(prices.httpApiRequest), total),
    {
      id: '8c',
      what: 'DynamoDB write units per delivered and read message (1 tracking tag, no webhook endpoint) vs the fewest the design needs (docs/cost.md)',
      figure: `${base.writeUnits.toFixed(1)} vs ${floor} (×${writeRatio.toFixed(2)})`,
      target: `≤ ×${TARGET_WRITE_RATIO}`,
      verdict: verdictOf(writeNumbers),
      note: `per message: ${Object.entries(base.byCommand).map(([c, k]) => `${k.toFixed(2)} ${c}`).join(', ')}; with one webhook endpoint ${(base.writeUnits + eventsWriteUnits).toFixed(1)}`,
      numbers: writeNumbers,
    },
    {
      id: '8d',
      what: 'CloudWatch Logs bytes per delivered message: the functions’ lines (measured) + Lambda’s platform records + API access log lines',
      figure: `${Math.round(base.logBytes)} B (${Math.round(base.appLogBytes)} B in ${base.appLogLines.toFixed(1)} lines + ${Math.round(base.platformBytes)} + ${Math.round(base.accessLogBytes)})`,
      target: 'reported',
      verdict: 'reported',
      numbers: valueNumbers('bytes per message', base.logBytes, null),
    },
    priced({ id: '8e', what: 'row 8a for a workspace with no webhook endpoint (its changes write no events, decision 77)' }, base.total, total),
    priced(
      {
        id: '8f',
        what: `PROTOTYPE, not the stack: row 8e on the lean write side (docs/cost.md, "What would meet $15"): its write units measured on DynamoDB Local (${lean.writes.perMessage.toFixed(1)} WRU, dispatch item ${lean.writes.dispatchBytes} B), the send on an HTTP API, WhatsApp's reports on a function URL, everything else as measured in 8e`,
        note: lean.note,
      },
      lean.total,
      base.total,
    ),
    priced(
      {
        id: '8g',
        what: 'PROTOTYPE: row 8f with one endpoint’s events as the stack publishes them (from the table’s stream, decision 89): the publisher’s fan-out, the consumer, delivery records, SQS and logs as measured in 8a',
        note: `events: publisher fan-out $${eventsOnPath.toFixed(2)}; ${events.summary} $${events.total.toFixed(2)}`,
      },
      lean.total + eventsDollars,
      total,
    ),
    priced(
      {
        id: '8h',
        what: `row 8a as deployed for steady traffic: tableCapacity (provisioned, auto scaled, used at ${PROVISIONED_UTILIZATION * 100} %) and systemLogLevel=WARN (docs/deploy.md, "Table capacity")`,
        note: steady.note,
      },
      total + steady.dollars,
      total,
    ),
    priced({ id: '8i', what: 'PROTOTYPE: row 8g (the lean write side, one endpoint’s events) with the same two settings', note: leanSteady.note }, lean.total + eventsDollars + leanSteady.dollars, total),
    priced(
      {
        id: '8j',
        what: 'row 8a with WhatsApp reports on a Lambda function URL (webhookFrontDoor=functionUrl: no price per request, no access log line)',
        note: `against the row it starts from: ${functionUrlChanges}`,
      },
      total + functionUrlSaving,
      total,
    ),
    priced(
      {
        id: '8k',
        what: 'row 8h (tableCapacity, systemLogLevel=WARN) with webhookFrontDoor=functionUrl: the cheapest the stack deploys today',
        note: `${steady.note}; ${functionUrlChanges}`,
      },
      total + steady.dollars + functionUrlSaving,
      total,
    ),
    priced(
      {
        id: '8l',
        what: 'row 8a with an Idempotency-Key on every send, as the README’s example sends (its record in the send’s transaction, read first and marked complete after the queue took the message: decisions 12, 47)',
        note: `against the row it starts from: ${keyed.note}: ${signed(keyed.onDemand, 2, '$')}`,
      },
      total + keyed.onDemand,
      total,
    ),
    priced(
      {
        id: '8m',
        what: 'row 8k (the cheapest the stack deploys today) with an Idempotency-Key on every send',
        note: `against the row it starts from: ${keyed.note}, provisioned: ${signed(keyed.provisioned, 2, '$')}`,
      },
      total + steady.dollars + functionUrlSaving + keyed.provisioned,
      total + steady.dollars + functionUrlSaving,
    ),
  ];
}

/**
 * Rows 8l and 8m: what an Idempotency-Key adds, as the send function's difference between the
 * plain run and one whose sends differ by the key alone (nothing else reads or writes its record).
 * Per million messages, on demand and with provisioned capacity (rows 8h, 8k).
 */
function priceKeyedSend(plain: { invocations: Invocation[]; dispatchIds: string[] }, keyed: { invocations: Invocation[]; dispatchIds: string[] }) {
  const sendOf = (run: { invocations: Invocation[]; dispatchIds: string[] }) => {
    const n = run.dispatchIds.length;
    const send = run.invocations.filter((invocation) => invocation.functionName === PATH.send);
    const dynamo = send.flatMap((invocation) => invocation.calls).filter((call) => call.service === 'dynamodb');
    return {
      ...unitsPerMessage(dynamo, n),
      calls: dynamo.length / n,
      ms: billedMs(send) / n,
      logBytes: logsPerMessage(send, n, send.length / n).bytes,
    };
  };
  const [before, after] = [sendOf(plain), sendOf(keyed)];
  const delta = { writeUnits: after.writeUnits - before.writeUnits, readUnits: after.readUnits - before.readUnits, calls: after.calls - before.calls, ms: after.ms - before.ms, logBytes: after.logBytes - before.logBytes };
  const others = (delta.ms / 1000) * (FUNCTION_MEMORY_MB / 1024) * prices.lambdaArmGbSecond + (delta.logBytes / 1e9) * prices.logsIngestedGb;
  return {
    onDemand: (delta.writeUnits * prices.dynamodbWriteUnit + delta.readUnits * prices.dynamodbReadUnit + others) * 1e6,
    provisioned: (delta.writeUnits * provisionedWriteUnit + delta.readUnits * provisionedReadUnit + others) * 1e6,
    note: `the send ${signed(delta.writeUnits, 1)} WRU, ${signed(delta.readUnits, 1)} RRU (${signed(delta.calls, 2)} DynamoDB calls), ${signed(delta.ms, 1)} ms, ${signed(delta.logBytes, 0)} B of logs a message`,
  };
}

/** Rows 8h and 8i: what provisioned capacity and Lambda's platform records at WARN change, per million messages. */
function steadyTraffic(perMessage: { writeUnits: number; readUnits: number; platformBytes: number }): { dollars: number; note: string } {
  const changes = [
    { name: 'DynamoDB writes', quantity: `${perMessage.writeUnits.toFixed(1)} WRU provisioned`, dollars: perMessage.writeUnits * (provisionedWriteUnit - prices.dynamodbWriteUnit) },
    { name: 'DynamoDB reads', quantity: `${perMessage.readUnits.toFixed(1)} RRU provisioned`, dollars: perMessage.readUnits * (provisionedReadUnit - prices.dynamodbReadUnit) },
    { name: 'CloudWatch Logs', quantity: `${Math.round(perMessage.platformBytes)} B of platform records dropped`, dollars: -(perMessage.platformBytes / 1e9) * prices.logsIngestedGb },
  ];
  const dollars = sum(changes, (c) => c.dollars) * 1e6;
  return { dollars, note: `against the row it starts from: ${changes.map((c) => `${c.name} ${c.quantity} ${signed(c.dollars * 1e6, 2, '$')}`).join('; ')}` };
}

/**
 * Row 8f: 8e's measured path with what the lean write side changes. DynamoDB writes are the
 * prototype's, measured; the stream consumer that writes the rollups, links and conversation is
 * priced as a function of the path (one invocation per batch, an in-region call per write); the
 * send moves to an HTTP API and WhatsApp's reports to a function URL (no request price; it gives
 * up WAF and API Gateway's throttling, the signature still checked on the raw body).
 */
async function priceLeanWriteSide(store: Store, sampleId: string, base: PathPrice) {
  const { Item: dispatch } = await store.db.send(new GetCommand({ TableName: store.tableName, Key: keys.dispatch(sampleId) }));
  // The rendering the send wrote to the conversation message (the dispatch does not keep it: decision 92).
  const { workspaceId, to, createdAt } = dispatch as { workspaceId: string; to: string; createdAt: string };
  const { Item: message } = await store.db.send(new GetCommand({ TableName: store.tableName, Key: keys.conversationMessage(workspaceId, conversationIdFor(workspaceId, 'whatsapp', to), createdAt, sampleId) }));
  if (!dispatch || typeof message?.text !== 'string') throw new Error(`The sample dispatch ${sampleId} or its conversation message is missing`);
  const sample = { ...dispatch, renderedText: message.text };
  const raw = new DynamoDBClient({ region: process.env.AWS_REGION, endpoint: process.env.DYNAMODB_ENDPOINT });
  const doc = DynamoDBDocumentClient.from(raw, { marshallOptions: { removeUndefinedValues: true } });
  try {
    const writes = await measureLeanWrites({ raw, doc }, sample, MESSAGES);
    const component = (name: string) => base.components.find((c) => c.name === name)!.dollars * 1e6;
    const aggregatorWrites = Object.entries(writes.perStep).filter(([step]) => step.startsWith('stream consumer')).length;
    const aggregator = lambdaComponent('stream consumer', { invocations: writes.aggregatorInvocations, ms: aggregatorWrites * AWS_CALL_MS });
    const changes: Component[] = [
      { name: 'DynamoDB writes', quantity: `${writes.perMessage.toFixed(1)} WRU (was ${base.writeUnits.toFixed(1)})`, dollars: writes.perMessage * prices.dynamodbWriteUnit - component('DynamoDB writes') / 1e6 },
      { name: 'send on an HTTP API', quantity: '1 req', dollars: prices.httpApiRequest - component('API Gateway (REST): send') / 1e6 },
      { name: 'reports on a function URL', quantity: `${base.webhooksPerMessage.toFixed(2)} req`, dollars: base.webhooksPerMessage * prices.functionUrlRequest - component('API Gateway (REST): WhatsApp reports') / 1e6 },
      aggregator,
    ];
    const total = base.total + sum(changes, (c) => c.dollars) * 1e6;
    const steps = Object.entries(writes.perStep).map(([step, units]) => `${step} ${units.toFixed(2)}`).join('; ');
    const note = `write units per message by step: ${steps}. Against 8e: ${changes.map((c) => `${c.name} ${c.quantity} ${signed(c.dollars * 1e6, 2, '$')}`).join('; ')}`;
    return { total, writes, note };
  } finally {
    doc.destroy();
  }
}

/**
 * Sends `count` messages, each to a number of its own from `firstNumber` on, and meters their path.
 * Runs that are compared use numbers new to the workspace: a send to a number with a conversation
 * moves that conversation's activity index entry (a delete and a put, 2 more units), which would
 * read as a difference between the runs.
 */
async function measurePath(
  options: { runtime: LocalRuntime; apiKey: string; functions: FunctionMeter; store: Store },
  count: number,
  firstNumber: number,
  receiver?: EventReceiver,
  keyed = false,
): Promise<{ invocations: Invocation[]; dispatchIds: string[] }> {
  const { runtime, functions } = options;
  functions.start();
  try {
    const dispatchIds = await sendAll(runtime.url, options.apiKey, count, firstNumber, keyed);
    await untilRead(dispatchIds, options.store);
    // The read report's last write follows readAt; let the last webhooks finish, and the report
    // projection's last window end and be written (decision 113).
    await new Promise((resolve) => setTimeout(resolve, 1_000 + reportProjectionSettings.tumblingWindowSeconds * 1_000 + 500));
    if (receiver) await receiver.untilQuiet(dispatchIds);
    return { invocations: functions.stop(), dispatchIds };
  } catch (error) {
    functions.stop();
    throw error;
  }
}

interface PathPrice {
  components: Component[];
  total: number;
  writeUnits: number;
  webhooksPerMessage: number;
  webhookRest: number;
  /** The webhook's share of the access log: a function URL writes none. */
  webhookAccessLogBytes: number;
  readUnits: number;
  byCommand: Record<string, number>;
  logBytes: number;
  appLogBytes: number;
  appLogLines: number;
  platformBytes: number;
  accessLogBytes: number;
}

/** Prices the send–deliver–report path from its invocations (per message, and per million in `total`). */
function pricePath(invocations: Invocation[], n: number, log: (line: string) => void): PathPrice {
  const of = (fn: string) => invocations.filter((invocation) => invocation.functionName === fn);
  const send = of(PATH.send);
  const deliver = of(PATH.deliver);
  const webhook = of(PATH.webhook);
  const publish = of(PATH.publish);
  const project = of(PATH.project);
  const known: string[] = [...Object.values(PATH), ...Object.values(EVENTS_PATH)];
  const elsewhere = [...new Set(invocations.map((i) => i.functionName).filter((fn) => !known.includes(fn)))];
  const records = deliver.reduce((total, i) => total + i.records, 0);
  if (records < n) throw new Error(`The consumer saw ${records} records for ${n} messages`);

  const calls = [...send, ...deliver, ...webhook, ...publish, ...project].flatMap((i) => i.calls);
  const dynamo = calls.filter((call) => call.service === 'dynamodb');
  const { writeUnits, readUnits } = unitsPerMessage(dynamo, n);
  const byCommand = Object.fromEntries(Object.entries(countBy(dynamo.map((call) => call.command.replace(/Command$/, '')))).map(([command, count]) => [command, count / n]));

  // API requests: the send, and each of WhatsApp's report POSTs.
  const webhooksPerMessage = webhook.length / n;
  const lambda = {
    [PATH.send]: { invocations: send.length / n, ms: billedMs(send) / n },
    // Per record: what the local batches took, shared by their records, plus a Graph call per batch.
    [PATH.deliver]: { invocations: 1 / BATCH, ms: billedMs(deliver) / records + GRAPH_ROUND_TRIP_MS / BATCH },
    [PATH.webhook]: { invocations: webhooksPerMessage, ms: billedMs(webhook) / n },
    // Its records as the deployed stream source batches them; its time per message, measured.
    [PATH.publish]: { invocations: 1 / PUBLISH_MESSAGES_PER_BATCH, ms: billedMs(publish) / n },
    // Batches as the publisher's, and one last invocation a window; its time per message, measured.
    [PATH.project]: { invocations: 1 / PUBLISH_MESSAGES_PER_BATCH + 1 / REPORT_MESSAGES_PER_WINDOW, ms: billedMs(project) / n },
  };
  const sqs = { send: calls.filter((call) => call.command === 'SendMessageCommand').length / n, receiveAndDelete: 2 / BATCH, other: calls.filter((call) => call.service === 'sqs' && call.command !== 'SendMessageCommand').length / n };
  const pathFunctions = [[PATH.send, send], [PATH.deliver, deliver], [PATH.webhook, webhook], [PATH.publish, publish], [PATH.project, project]] as const;
  const logs = Object.fromEntries(pathFunctions.map(([fn, list]) => [fn, logsPerMessage(list, n, lambda[fn].invocations)]));
  const appLogBytes = sum(Object.values(logs), (l) => l.bytes);
  const appLogLines = sum(Object.values(logs), (l) => l.lines);
  // Lambda's own records per invocation (JSON log format), and API Gateway's access log line per request.
  const platformBytes = sum(Object.values(lambda), (l) => l.invocations) * platformLogBytes();
  const webhookAccessLogBytes = webhooksPerMessage * accessLogLineBytes('POST', routes.whatsappWebhook.path, 200);
  const accessLogBytes = (send.length / n) * accessLogLineBytes('POST', routes.sendMessage.path, 202) + webhookAccessLogBytes;
  const logBytes = appLogBytes + platformBytes + accessLogBytes;
  const secretCalls = (SECRET_READING_FUNCTIONS * MONTH_MINUTES) / CACHE_MINUTES / 1e6;
  const kmsCalls = secretCalls + (TABLE_FUNCTIONS * MONTH_MINUTES) / CACHE_MINUTES / 1e6;

  const components: Component[] = [
    { name: 'API Gateway (REST): send', quantity: `${(send.length / n).toFixed(2)} req`, dollars: (send.length / n) * prices.restApiRequest },
    { name: 'API Gateway (REST): WhatsApp reports', quantity: `${webhooksPerMessage.toFixed(2)} req`, dollars: webhooksPerMessage * prices.restApiRequest },
    ...Object.entries(lambda).map(([fn, l]) => lambdaComponent(fn, l)),
    { name: 'DynamoDB writes', quantity: `${writeUnits.toFixed(1)} WRU`, dollars: writeUnits * prices.dynamodbWriteUnit },
    { name: 'DynamoDB reads', quantity: `${readUnits.toFixed(1)} RRU`, dollars: readUnits * prices.dynamodbReadUnit },
    { name: 'SQS', quantity: `${(sqs.send + sqs.receiveAndDelete + sqs.other).toFixed(2)} req`, dollars: (sqs.send + sqs.receiveAndDelete + sqs.other) * prices.sqsRequest },
    { name: 'CloudWatch Logs', quantity: `${(logBytes / 1024).toFixed(2)} KB`, dollars: (logBytes / 1e9) * prices.logsIngestedGb },
    { name: 'Secrets Manager', quantity: `${secretCalls.toFixed(4)} calls`, dollars: secretCalls * prices.secretsManagerCall },
    { name: 'KMS', quantity: `${kmsCalls.toFixed(4)} req`, dollars: kmsCalls * prices.kmsRequest },
  ];

  if (process.env.BENCH_KEEP_LOGS) log([send[0], deliver[0], ...webhook.slice(0, 3)].flatMap((i) => i?.logText ?? []).join(''));
  log(`  ${n} messages: ${send.length} sends, ${deliver.length} deliver batches (${records} records), ${webhook.length} webhooks, ${publish.length} publisher batches (${sum(publish, (i) => i.records)} records), ${project.length} report projection invocations (${sum(project, (i) => i.records)} records)${elsewhere.length ? `; not on the path: ${elsewhere.join(', ')}` : ''}`);
  for (const [fn, list] of pathFunctions) log(`  ${fn} per message: ${dynamoLine(list, n)}; logs ${Math.round(logs[fn]!.bytes)} B in ${logs[fn]!.lines.toFixed(2)} lines`);
  return {
    components,
    total: sum(components, (c) => c.dollars) * 1e6,
    writeUnits,
    webhooksPerMessage,
    webhookRest: webhooksPerMessage * prices.restApiRequest * 1e6,
    webhookAccessLogBytes,
    readUnits,
    byCommand,
    logBytes,
    appLogBytes,
    appLogLines,
    platformBytes,
    accessLogBytes,
  };
}

interface EventsPrice {
  perMessage: number;
  total: number;
  writeUnits: number;
  readUnits: number;
  platformBytes: number;
  summary: string;
}

/**
 * Prices what the event consumer did per message: its DynamoDB calls, SQS requests (its receives
 * and deletes as deployed batching makes them) and logs. The publisher is on every message's path
 * (`pricePath`); what it does more for a workspace with an endpoint is in the two runs' difference.
 * Its stream reads are free: DynamoDB Streams GetRecords made by a Lambda trigger are not billed.
 */
function priceEvents(invocations: Invocation[], n: number, eventsPerMessage: number): EventsPrice {
  const deliver = invocations.filter((i) => i.functionName === EVENTS_PATH.deliver);
  const deliveredRecords = sum(deliver, (i) => i.records);
  if (!deliveredRecords) throw new Error('No events went out');
  const calls = deliver.flatMap((i) => i.calls);
  const dynamo = calls.filter((call) => call.service === 'dynamodb');
  const { writeUnits, readUnits } = unitsPerMessage(dynamo, n);
  // Per event, from the local batches; invocations as the deployed batching would make them.
  const lambda = {
    [EVENTS_PATH.deliver]: {
      invocations: eventsPerMessage / webhookQueueSettings.batchSize,
      ms: (billedMs(deliver) / deliveredRecords) * eventsPerMessage + (RECEIVER_ROUND_TRIP_MS * eventsPerMessage) / webhookQueueSettings.batchSize,
    },
  };
  const sqsRequests = calls.filter((call) => call.service === 'sqs').length / n + (2 * eventsPerMessage) / webhookQueueSettings.batchSize;
  const platformBytes = lambda[EVENTS_PATH.deliver].invocations * platformLogBytes();
  const logBytes = logsPerMessage(deliver, n, lambda[EVENTS_PATH.deliver].invocations).bytes + platformBytes;
  const dollars =
    sum(Object.entries(lambda), ([fn, l]) => lambdaComponent(fn, l).dollars) +
    writeUnits * prices.dynamodbWriteUnit +
    readUnits * prices.dynamodbReadUnit +
    sqsRequests * prices.sqsRequest +
    (logBytes / 1e9) * prices.logsIngestedGb;
  const summary = `their functions ${Object.entries(lambda)
    .map(([fn, l]) => `${fn} ${l.invocations.toFixed(2)} inv ${l.ms.toFixed(1)} ms`)
    .join(', ')}, ${writeUnits.toFixed(1)} WRU + ${readUnits.toFixed(1)} RRU, ${sqsRequests.toFixed(2)} SQS req, ${(logBytes / 1024).toFixed(2)} KB logs`;
  return { perMessage: eventsPerMessage, total: dollars * 1e6, writeUnits, readUnits, platformBytes, summary };
}

interface EventReceiver {
  received: { type: string; data: unknown }[];
  untilQuiet(dispatchIds: string[]): Promise<void>;
  stop(): Promise<void>;
}

/** A receiver on this machine (lib/webhook-receiver.ts), registered as the bench workspace's one endpoint. */
async function eventReceiver(store: Store): Promise<EventReceiver> {
  const { registerEndpoint, removeEndpoint } = await import('../../lambdas/domain/webhooks/manage-endpoints');
  const { clearEventGateCache } = await import('../../lambdas/domain/webhooks/event-gate');
  const { startWebhookReceiver } = await import('../../lib/webhook-receiver');
  const received: EventReceiver['received'] = [];
  // The secret comes with the registration, and the receiver verifies with it: the port first.
  const port = await freePort();
  const { answer: endpoint } = await registerEndpoint({ workspaceId: BENCH_WORKSPACE, url: `http://127.0.0.1:${port}/hooks`, events: null, description: 'row 8' }, new Date(), { store });
  const listening = await startWebhookReceiver({ secret: endpoint.secret, port, onEvent: (event) => received.push(event) });
  clearEventGateCache();
  return {
    received,
    async untilQuiet(dispatchIds) {
      const delivered = (id: string) => received.some((event) => (event.data as { dispatchId?: string; status?: string }).dispatchId === id && (event.data as { status?: string }).status === 'delivered');
      while (!dispatchIds.every(delivered)) await new Promise((resolve) => setTimeout(resolve, 250));
      // Then until nothing more comes for a while: a read may follow its delivered event.
      for (let seen = -1; seen !== received.length; ) {
        seen = received.length;
        await new Promise((resolve) => setTimeout(resolve, 2_000));
      }
    },
    async stop() {
      await new Promise((resolve) => listening.close(resolve));
      await removeEndpoint(BENCH_WORKSPACE, endpoint.id, { store });
      clearEventGateCache();
    },
  };
}

const lambdaComponent = (fn: string, l: { invocations: number; ms: number }): Component => ({
  name: `Lambda ${fn}`,
  quantity: `${l.invocations.toFixed(2)} inv, ${l.ms.toFixed(1)} ms × ${FUNCTION_MEMORY_MB} MB`,
  dollars: l.invocations * prices.lambdaRequest + (l.ms / 1000) * (FUNCTION_MEMORY_MB / 1024) * prices.lambdaArmGbSecond,
});

/** Write and read units per message of these DynamoDB calls. */
const unitsPerMessage = (dynamo: Invocation['calls'], n: number) => ({
  writeUnits: sum(dynamo.filter((call) => WRITE_COMMANDS.has(call.command)), (call) => call.capacity) / n,
  readUnits: sum(dynamo.filter((call) => !WRITE_COMMANDS.has(call.command)), (call) => call.capacity) / n,
});

/** A function's billed time: measured, less its waits on the local emulators, plus an in-region AWS call each, rounded up per invocation. */
const billedMs = (list: Invocation[]) => sum(list, (i) => Math.ceil(Math.max(0, i.ms - sum(i.calls, (call) => call.ms)) + i.calls.length * AWS_CALL_MS));

/**
 * A function's log lines per message: as measured, except its metric line, which it writes once
 * an invocation (lambdas/shared/metrics.ts). Locally the stream and queue functions run a record
 * or two at a time; deployed, `invocationsPerMessage` (batches of 10), each flushing one line for
 * its batch (its values as arrays, a few bytes more a record: left out). A count by a dimension
 * (a failure code, a skip reason) is a line of its own each time; none is on this path.
 */
function logsPerMessage(list: Invocation[], n: number, invocationsPerMessage: number): { bytes: number; lines: number } {
  if (!list.length) return { bytes: 0, lines: 0 };
  const perInvocation = (of: (i: Invocation) => number) => (sum(list, of) / list.length) * invocationsPerMessage;
  return {
    bytes: sum(list, (i) => i.logBytes - i.metricBytes) / n + perInvocation((i) => i.metricBytes),
    lines: sum(list, (i) => i.logLines - i.metricLines) / n + perInvocation((i) => i.metricLines),
  };
}

const dynamoLine = (list: Invocation[], n: number) => {
  const own = list.flatMap((i) => i.calls).filter((call) => call.service === 'dynamodb');
  return [...new Set(own.map((call) => call.command))]
    .map((command) => {
      const of = own.filter((call) => call.command === command);
      return `${(of.length / n).toFixed(2)}× ${command.replace(/Command$/, '')} ${(sum(of, (c) => c.capacity) / n).toFixed(1)} CU (index ${(sum(of, (c) => c.indexCapacity) / n).toFixed(1)})`;
    })
    .join(', ');
};

async function sendAll(baseUrl: string, apiKey: string, count: number, firstNumber: number, keyed: boolean): Promise<string[]> {
  const ids: string[] = [];
  let next = 0;
  const sender = async () => {
    while (next < count) {
      const i = next++;
      const response = await fetch(`${baseUrl}${pathOf(routes.sendMessage)}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-api-key': apiKey, ...(keyed ? { 'idempotency-key': `cost-${randomUUID()}` } : {}) },
        body: JSON.stringify({
          channel: 'whatsapp',
          to: `0812${String(firstNumber + i)}${READ_ENDING}`,
          content: { type: 'template', templateId: DEMO_TEMPLATE, variables: { name: 'Budi', order: `C-${i}` } },
          trackingTags: ['cost'],
        }),
      });
      if (response.status !== 202) throw new Error(`send answered ${response.status}: ${await response.text()}`);
      ids.push(((await response.json()) as { dispatchId: string }).dispatchId);
    }
  };
  await Promise.all(Array.from({ length: CONCURRENCY }, sender));
  return ids;
}

/** Reads the table directly (no function on the path is invoked) until every dispatch has its readAt. */
async function untilRead(ids: string[], store: Store): Promise<void> {
  const pending = new Set(ids);
  const deadline = Date.now() + 120_000;
  while (pending.size && Date.now() < deadline) {
    for (const id of [...pending]) {
      const { Item } = await store.db.send(new GetCommand({ TableName: store.tableName, Key: keys.dispatch(id) }));
      if (Item?.readAt) pending.delete(id);
    }
    if (pending.size) await new Promise((resolve) => setTimeout(resolve, 250));
  }
  if (pending.size) throw new Error(`${pending.size} of ${ids.length} dispatches were never read`);
}

/** Lambda's platform.start and platform.report records in the JSON log format, one pair per invocation. */
function platformLogBytes(): number {
  const time = new Date().toISOString();
  const requestId = randomUUID();
  const start = { time, type: 'platform.start', record: { requestId, version: '$LATEST' } };
  const report = { time, type: 'platform.report', record: { requestId, metrics: { durationMs: 12.345, billedDurationMs: 13, memorySizeMB: FUNCTION_MEMORY_MB, maxMemoryUsedMB: 95 }, status: 'success' } };
  return Buffer.byteLength(`${JSON.stringify(start)}\n${JSON.stringify(report)}\n`);
}

/** One access log line of the stack's format (lib/constructs/messaging-api.ts), filled as API Gateway would. */
function accessLogLineBytes(method: string, resourcePath: string, status: number): number {
  const values: Record<string, string> = {
    requestId: randomUUID(),
    requestTime: '23/Nov/2026:20:27:04 +0000',
    'identity.sourceIp': '203.0.113.10',
    httpMethod: method,
    resourcePath,
    protocol: 'HTTP/1.1',
    status: String(status),
    responseLength: '120',
    responseLatency: '45',
    integrationLatency: '41',
    integrationStatus: String(status),
    'error.responseType': '-',
  };
  return Buffer.byteLength(`${ACCESS_LOG_FORMAT.toString().replace(/\$context\.([\w.]+)/g, (_: string, name: string) => values[name] ?? '-')}\n`);
}

const sum = <T>(list: readonly T[], value: (item: T) => number) => list.reduce((total, item) => total + value(item), 0);
/** `+1.5`, `−0.4`, `+0.0` (never `-0.0`), with `unit` after the sign. */
const signed = (value: number, digits: number, unit = '') => {
  const rounded = Number(value.toFixed(digits));
  return `${rounded < 0 ? '−' : '+'}${unit}${Math.abs(rounded).toFixed(digits)}`;
};
const countBy = (names: string[]) => names.reduce<Record<string, number>>((counts, name) => ({ ...counts, [name]: (counts[name] ?? 0) + 1 }), {});

