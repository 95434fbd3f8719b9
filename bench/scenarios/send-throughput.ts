import { randomUUID } from 'node:crypto';
import { join } from 'node:path';
import { DynamoDBClient, TransactionCanceledException, TransactWriteItemsCommand, type TransactWriteItemsCommandInput } from '@aws-sdk/client-dynamodb';
import { SQSClient, SendMessageCommand, type SendMessageCommandInput } from '@aws-sdk/client-sqs';
import { UpdateCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import type { SerializeMiddleware } from '@smithy/types';
import autocannon from 'autocannon';
import { withoutCallLog } from '../../lambdas/shared/store';
import type { LocalRuntime } from '../../lib/local/runtime';
import { median, meetsTarget, ratioNumbers, valueNumbers, verdictOf, type Row } from '../harness';
import { runChild } from '../child-process';
import type { SendThroughputPlan, SendThroughputResult } from '../send-throughput-child';

const CONCURRENCY = 32;
const ROUND_SECONDS = 8;
const ROUNDS = 3;
const TARGET = 0.8;
/** The send's own bound on trying its transaction again (CONFLICT_RETRIES). */
const CONFLICT_TRIES = 20;

interface Captured {
  transaction: TransactWriteItemsCommandInput;
  message: SendMessageCommandInput;
  dispatchId: string;
}

/** A send's times as the SDK serialises them: each replay renews them, as each send has its own. */
const ISO_TIME = /\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z/g;

/**
 * Rows 3 and 7a as the bench runs them: in a process of their own (bench/send-throughput-child.ts)
 * serving the API alone, on the bench's emulators.
 */
export async function sendThroughputAlone(options: { env: NodeJS.ProcessEnv; plan: SendThroughputPlan; log: (line: string) => void }): Promise<Row[]> {
  // Logs and metrics on, as deployed: writing them is part of a send's work.
  const env: NodeJS.ProcessEnv = { ...options.env, POWERTOOLS_LOG_LEVEL: 'INFO', POWERTOOLS_METRICS_DISABLED: 'false' };
  const { rows, lines } = await runChild<SendThroughputResult>(join(import.meta.dirname, '..', 'send-throughput-child.ts'), options.plan, env);
  lines.forEach((line) => options.log(line));
  return rows;
}

/**
 * Row 3 and row 7's runtime figure: POST /v1/messages over HTTP on the local runtime at
 * concurrency 32, against the floor its parts allow: the same TransactWriteItems and
 * SendMessage a send makes, issued directly with the SDK at the same concurrency against the same
 * DynamoDB Local and SQS emulator. Rounds alternate (A B, B A, …); figures are medians.
 */
export async function sendThroughput(options: {
  runtime: LocalRuntime;
  apiKey: string;
  clients: { dynamodb: DynamoDBDocumentClient; sqs: SQSClient };
  log: (line: string) => void;
}): Promise<Row[]> {
  const body = JSON.stringify({ channel: 'whatsapp', to: '081234567890', content: { type: 'template', templateId: '7b0c5c3e-0000-4000-8000-000000000001', variables: { name: 'Budi', order: 'B-1' } } });
  const headers = { 'content-type': 'application/json', 'x-api-key': options.apiKey };
  const { latest: captured, earlier } = await captureSends(options, headers, body);

  // The baseline's own clients, configured as the handlers' are (without the SDK's call logger, decision 120).
  const dynamodb = withoutCallLog(new DynamoDBClient({ region: options.runtime.region, endpoint: options.runtime.dynamodbEndpoint }));
  const sqs = withoutCallLog(new SQSClient({ region: options.runtime.region, endpoint: options.runtime.sqsEndpoint }));
  const replay = <T>(input: T, from: string) => {
    const template = JSON.stringify(input);
    return (id: string, at: string) => JSON.parse(template.replaceAll(from, id).replace(ISO_TIME, at)) as T;
  };
  const transaction = replay(captured.transaction, captured.dispatchId);
  const lostRace = replay(earlier.transaction, earlier.dispatchId);
  const message = replay(captured.message, captured.dispatchId);
  const conversation = conversationWriteOf(captured.transaction);
  // What the direct side met, for the round's line: the HTTP side's sends meet the same.
  const met = { lostRaces: 0, conflicts: 0 };
  const direct = async () => {
    // The same items under a fresh dispatch id and time, so each transaction's conditions hold.
    const id = randomUUID();
    const at = new Date().toISOString();
    for (let attempt = 0, input = transaction(id, at); ; attempt++) {
      try {
        await dynamodb.send(new TransactWriteItemsCommand(input));
        break;
      } catch (error) {
        if (!(error instanceof TransactionCanceledException) || attempt >= CONFLICT_TRIES) throw error;
        const reasons = error.CancellationReasons?.map((reason) => reason.Code) ?? [];
        // As the send does: a send that began later is the conversation's last already, so this one
        // writes itself in as an earlier message; a transaction on the same items is waited out.
        if (reasons[conversation] === 'ConditionalCheckFailed') {
          met.lostRaces++;
          input = lostRace(id, at);
        } else if (reasons.includes('TransactionConflict')) {
          met.conflicts++;
          await new Promise((resolve) => setTimeout(resolve, Math.random() * Math.min(1_000, 25 * 2 ** attempt)));
        } else throw error;
      }
    }
    await sqs.send(new SendMessageCommand(message(id, at)));
  };

  const rss = { peak: 0 };
  const sampleRss = () => {
    // `rss()` alone: the full `memoryUsage()` walks V8's heap spaces, on the HTTP side's clock.
    rss.peak = Math.max(rss.peak, process.memoryUsage.rss());
  };
  const overHttp = async () => {
    const timer = setInterval(sampleRss, 50);
    try {
      const result = await autocannon({ url: `${options.runtime.url}/v1/messages`, method: 'POST', connections: CONCURRENCY, duration: ROUND_SECONDS, headers, body });
      const accepted = result.statusCodeStats['202']?.count ?? 0;
      return { perSecond: accepted / ROUND_SECONDS, other: result.requests.total - accepted + result.errors + result.timeouts };
    } finally {
      clearInterval(timer);
    }
  };
  // Kept for the row's note, as row 4d keeps its own: a failed round says why.
  let firstFailure: string | undefined;
  const withSdk = async () => {
    const deadline = Date.now() + ROUND_SECONDS * 1000;
    let done = 0;
    let failed = 0;
    await Promise.all(
      Array.from({ length: CONCURRENCY }, async () => {
        while (Date.now() < deadline) {
          // As autocannon does, a request still in flight at the deadline is not counted.
          await direct().then(
            () => (Date.now() < deadline ? done++ : undefined),
            (error: unknown) => {
              failed++;
              firstFailure ??= `${(error as Error).name}: ${(error as Error).message}`;
            },
          );
        }
      }),
    );
    return { perSecond: done / ROUND_SECONDS, other: failed };
  };

  const http: { perSecond: number; other: number; cpuMsPerSend: number }[] = [];
  const sdk: { perSecond: number; other: number; cpuMsPerSend: number }[] = [];
  for (let round = 0; round < ROUNDS; round++) {
    const order = round % 2 === 0 ? [overHttp, withSdk] : [withSdk, overHttp];
    for (const side of order) {
      // This process's CPU per send: the load generator and the consumer run here on both sides.
      const cpuBefore = process.cpuUsage();
      const result = await side();
      const cpu = process.cpuUsage(cpuBefore);
      const cpuMsPerSend = (cpu.user + cpu.system) / 1000 / Math.max(1, result.perSecond * ROUND_SECONDS);
      (side === overHttp ? http : sdk).push({ ...result, cpuMsPerSend });
    }
    options.log(`  round ${round + 1}: HTTP ${http.at(-1)!.perSecond.toFixed(0)}/s, SDK ${sdk.at(-1)!.perSecond.toFixed(0)}/s (so far, direct: ${met.lostRaces} written again as earlier, ${met.conflicts} conflicts waited out)`);
  }
  const ownRate = median(http.map((r) => r.perSecond));
  const floorRate = median(sdk.map((r) => r.perSecond));
  const numbers = ratioNumbers('sends/s', ownRate, floorRate, TARGET, 'at least');
  const ratio = numbers.ratio!;
  const rejected = http.reduce((sum, r) => sum + r.other, 0);
  const failedDirect = sdk.reduce((sum, r) => sum + r.other, 0);
  return [
    {
      id: '3',
      what: `sends/s over HTTP, concurrency ${CONCURRENCY}, vs TransactWriteItems + SendMessage direct (median of ${ROUNDS} × ${ROUND_SECONDS} s rounds each)`,
      figure: `${ownRate.toFixed(0)}/s vs ${floorRate.toFixed(0)}/s (×${ratio.toFixed(2)}); non-202: ${rejected}, direct failures: ${failedDirect}`,
      target: `≥ ×${TARGET}`,
      // A failed send on either side voids the comparison: a side that barely ran can make any ratio.
      verdict: verdictOf(numbers) === 'met' && rejected === 0 && failedDirect === 0 ? 'met' : 'missed',
      ...(firstFailure
        ? { note: `first direct failure: ${firstFailure}` }
        : !meetsTarget(numbers)
        ? {
            note: `this process used ${median(http.map((r) => r.cpuMsPerSend)).toFixed(1)} ms CPU per send over HTTP vs ${median(sdk.map((r) => r.cpuMsPerSend)).toFixed(1)} ms direct (HTTP server, Middy, validation and the SDK calls, beside DynamoDB Local on the same 2 cores); row 2 shows where a warm send's CPU goes`,
          }
        : {}),
      numbers,
    },
    {
      id: '7a',
      what: 'peak RSS of row 3\'s process: the local runtime serving the API, and the load generator',
      figure: `${(rss.peak / 2 ** 20).toFixed(0)} MiB`,
      target: 'reported',
      verdict: 'reported',
      numbers: valueNumbers('MiB', rss.peak / 2 ** 20, null),
    },
  ];
}

/**
 * The transaction and message one real send makes, as the SDK serialises them (`latest`), and the
 * transaction of a send that lost the conversation to a later one (`earlier`): at concurrency 32
 * on one number, sends commit out of the order of their times, and such a send writes again as
 * an earlier message (send-transaction.ts). It is captured by making the conversation's last
 * message one from the future for one send, then putting its time back.
 */
async function captureSends(options: { runtime: LocalRuntime; clients: { dynamodb: DynamoDBDocumentClient; sqs: SQSClient } }, headers: Record<string, string>, body: string): Promise<{ latest: Captured; earlier: Captured }> {
  const latest = await captureOneSend(options, headers, body);
  const key = latest.transaction.TransactItems![conversationWriteOf(latest.transaction)]!.Update!.Key!;
  const setLast = (at: string) =>
    options.clients.dynamodb.send(
      new UpdateCommand({ TableName: options.runtime.tableName, Key: Object.fromEntries(Object.entries(key).map(([name, value]) => [name, value.S])), UpdateExpression: 'SET lastMessageAt = :at', ExpressionAttributeValues: { ':at': at } }),
    );
  await setLast('2999-01-01T00:00:00.000Z');
  try {
    return { latest, earlier: await captureOneSend(options, headers, body, 'last') };
  } finally {
    await setLast(new Date().toISOString());
  }
}

/** The index of the conversation's write in a send's transaction: the one held to the conversation's last message. */
function conversationWriteOf(transaction: TransactWriteItemsCommandInput): number {
  const index = transaction.TransactItems!.findIndex((item) => item.Update?.ConditionExpression?.includes('lastMessageAt'));
  if (index < 0) throw new Error('The captured send has no conversation write held to its last message');
  return index;
}

/** The transaction and message one real send makes, as the SDK serialises them: its first transaction, or its `last` when it wrote again. */
async function captureOneSend(options: { runtime: LocalRuntime; clients: { dynamodb: DynamoDBDocumentClient; sqs: SQSClient } }, headers: Record<string, string>, body: string, which: 'first' | 'last' = 'first'): Promise<Captured> {
  // Every transaction and message the process sends meanwhile: the consumer shares these clients,
  // so the send's own are the ones that name the dispatch it answered with.
  const seen: { transaction: TransactWriteItemsCommandInput[]; message: SendMessageCommandInput[] } = { transaction: [], message: [] };
  const capture =
    (key: 'transaction' | 'message', command: string): SerializeMiddleware<object, object> =>
    (next, context) =>
    (args) => {
      if (context.commandName === command) seen[key].push(structuredClone(args.input) as never);
      return next(args);
    };
  const step = { step: 'serialize', priority: 'low' } as const;
  options.clients.dynamodb.middlewareStack.add(capture('transaction', 'TransactWriteItemsCommand') as never, { ...step, name: 'bench-capture-transaction' });
  options.clients.sqs.middlewareStack.add(capture('message', 'SendMessageCommand') as never, { ...step, name: 'bench-capture-message' });
  try {
    const response = await fetch(`${options.runtime.url}/v1/messages`, { method: 'POST', headers, body });
    const { dispatchId } = JSON.parse(await response.text()) as { dispatchId: string };
    const own = <T>(inputs: T[]) => inputs.filter((input) => JSON.stringify(input).includes(dispatchId));
    const transaction = which === 'first' ? own(seen.transaction)[0] : own(seen.transaction).at(-1);
    const [message] = own(seen.message);
    if (response.status !== 202 || !transaction || !message) throw new Error(`Could not capture a send (HTTP ${response.status})`);
    if (which === 'last' && own(seen.transaction).length < 2) throw new Error('The captured send did not write again as an earlier message');
    return { transaction, message, dispatchId };
  } finally {
    options.clients.dynamodb.middlewareStack.remove('bench-capture-transaction');
    options.clients.sqs.middlewareStack.remove('bench-capture-message');
  }
}
