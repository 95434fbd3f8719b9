import '../bin/node-check.cjs';
import { fork, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type IncomingMessage, type Server } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { scanTable } from '../lib/local/scan-table';
import * as z from 'zod';
import { startDynamoDbLocal, type DynamoDbLocal } from '../lib/local/dynamodb-local';
import { freePort } from '../lib/local/free-port.cjs';
import { LOCAL_WHATSAPP, PROJECT_ROOT } from '../lib/local/paths';
import { startLocalRuntime } from '../lib/local/runtime';
import { startSqsEmulator } from '../lib/local/sqs-emulator';
import { createStore, type Store } from '../lambdas/shared/store';
import { startTcpProxy } from '../test/support/tcp-proxy';
import { machine, writeMarkedSection } from './harness';

process.env.POWERTOOLS_LOG_LEVEL ??= 'SILENT';

/**
 * `npm run chaos` (issue 15): 20,000 sends (CHAOS_SENDS) against the local runtime while DynamoDB
 * Local is SIGKILLed and restarted on its data, the deliver consumer (its own process) is SIGKILLed
 * mid-batch and restarted, and the queue is cut for a few seconds; with recipients the sandbox
 * rate-limits (0429), times out on (0504) and rejects (0000), and every provider report delivered
 * twice, out of order. Then checks every accepted dispatch: final, one provider call, its events
 * and rollups counted once, and no 5xx but the documented ones. Exits non-zero when a check fails.
 */
const SENDS = Number(process.env.CHAOS_SENDS ?? 20_000);
const CONCURRENCY = Number(process.env.CHAOS_CONCURRENCY ?? 16);
const API_KEY = 'msk_local_load_0001';
const TEMPLATE_ID = '7b0c5c3e-0000-4000-8000-000000000001';
const TAG = 'chaos';
/**
 * docs/operations.md "How long a dispatch may stay unsettled": a dead attempt is released about 5
 * min after its claim and queued again 4 min later (decision 161); 15 min is a fault here, where
 * the sandbox reports on every send (a dead attempt settled `unknown` would take 20, decision 163).
 */
const SETTLE_LIMIT_MS = Number(process.env.CHAOS_SETTLE_SECONDS ?? 900) * 1000;
/**
 * How long the count of delivery events and rollups waits for the table's stream readers to catch
 * up with the moves, once every dispatch is final. Here they share DynamoDB Local, a few hundred
 * writes a second on two cores, with everything else, and fall behind a 20,000-send burst by more
 * than ten minutes (docs/failure-and-load.md): the run waits for them and records the lag
 * (`streamSeconds`) rather than count late events as lost.
 */
const STREAM_LIMIT_MS = Number(process.env.CHAOS_STREAM_SECONDS ?? 1800) * 1000;
/**
 * Between two full scans while waiting, at least this, and at least three times the last scan's
 * own time: a scan of 20,000 dispatches' items loads DynamoDB Local, which the readers need.
 */
const SCAN_PAUSE_MS = 10_000;
const SEND_RETRIES = 6;

/** 5% each rejected, rate limited twice, timing out once; the rest ordinary. Every number differs. */
const endingOf = (i: number) => (['0000', '0429', '0504'][i % 20] ?? '0001');
const phoneOf = (i: number) => `+628${String(i).padStart(6, '0')}${endingOf(i)}`;
const expectedOf = (i: number) => (endingOf(i) === '0000' ? 'failed' : 'delivered');

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const started = Date.now();
const at = () => Number(((Date.now() - started) / 1000).toFixed(1));
const events: { at: number; what: string }[] = [];
const note = (what: string) => {
  events.push({ at: at(), what });
  console.log(`  [${at()} s] ${what}`);
};

async function main(): Promise<void> {
  /** Stream records a reader handed to its function as often as the stack would, then gave up (lib/local/stream-poller.ts). */
  let streamRecordsGivenUp = 0;
  const dataDir = mkdtempSync(join(tmpdir(), 'messaging-chaos-'));
  const dynamodbPort = await freePort();
  let dynamodb: DynamoDbLocal = await startDynamoDbLocal({ port: dynamodbPort, dataDir });
  const sqsEmulator = await startSqsEmulator();
  const queueProxy = await startTcpProxy(sqsEmulator.endpoint);
  const runtime = await startLocalRuntime({
    port: 0,
    namePrefix: 'chaos',
    seedPath: join(import.meta.dirname, 'load-seed.json'),
    dynamodbEndpoint: dynamodb.endpoint,
    sqsEndpoint: queueProxy.endpoint,
    consumer: false,
    // The reconciler and the stream readers meet the outages too; what matters is where the
    // dispatches end, and whether a stream reader gave a batch up (late and lost differ there).
    onError: (error) => {
      const givenUp = /gave up on (\d+) stream record/.exec(error instanceof Error ? error.message : '');
      if (givenUp) streamRecordsGivenUp += Number(givenUp[1]);
    },
  });
  const webhookUrl = `${runtime.url}/webhooks/whatsapp`;
  const webhook = startDuplicatingWebhookProxy(webhookUrl);
  const provider = await startProvider(await webhook.url);
  let consumer = await startConsumer(provider.url, runtime.queueArn);
  const store = createStore({ tableName: runtime.tableName, region: runtime.region, endpoint: dynamodb.endpoint });

  try {
    console.log(`Chaos: ${SENDS} sends over ${CONCURRENCY} connections to ${runtime.url} …`);
    const answers = new Map<string, number>();
    const fiveHundreds: { at: number; status: number; retryAfter: string | null; error: unknown }[] = [];
    const accepted = new Map<string, number>();
    const unanswered: number[] = [];
    let next = 0;
    let done = 0;
    const sendOne = async (i: number) => {
      const body = JSON.stringify({ channel: 'whatsapp', to: phoneOf(i), content: { type: 'template', templateId: TEMPLATE_ID, variables: { name: 'Budi', order: `C-${i}` } }, trackingTags: [TAG] });
      for (let attempt = 1; attempt <= SEND_RETRIES; attempt++) {
        let status = 0;
        let retryAfter: string | null = null;
        let json: { dispatchId?: string; error?: string } = {};
        try {
          const response = await fetch(`${runtime.url}/v1/messages`, { method: 'POST', headers: { 'content-type': 'application/json', 'x-api-key': API_KEY, 'idempotency-key': `chaos-${i}` }, body, signal: AbortSignal.timeout(60_000) });
          status = response.status;
          retryAfter = response.headers.get('retry-after');
          json = (await response.json()) as typeof json;
        } catch {
          status = 0;
        }
        answers.set(String(status), (answers.get(String(status)) ?? 0) + 1);
        if (status >= 500) fiveHundreds.push({ at: at(), status, retryAfter, error: json.error });
        if (status === 202) {
          accepted.set(json.dispatchId!, i);
          return;
        }
        // 503 (the table away) and 502 (the queue away) are answers that say "try again": the key makes that safe.
        if (status !== 503 && status !== 502 && status !== 0) break;
        await sleep(1000 * Number(retryAfter ?? 1) * attempt);
      }
      unanswered.push(i);
    };
    const sender = async () => {
      while (next < SENDS) {
        await sendOne(next++);
        done++;
      }
    };
    const stream = Promise.all(Array.from({ length: CONCURRENCY }, sender));

    const reach = async (fraction: number) => {
      while (done < SENDS * fraction) await sleep(50);
    };
    await reach(0.2);
    note(`consumer SIGKILLed (pid ${consumer.pid}) after ${done} sends`);
    await kill(consumer);
    await sleep(2000);
    consumer = await startConsumer(provider.url, runtime.queueArn);
    note(`consumer restarted (pid ${consumer.pid})`);

    await reach(0.35);
    note(`DynamoDB Local SIGKILLed after ${done} sends`);
    await kill(dynamodb.process);
    await sleep(4000);
    dynamodb = await startDynamoDbLocal({ port: dynamodbPort, dataDir });
    note('DynamoDB Local restarted on the same port and data');

    await reach(0.5);
    note(`consumer SIGKILLed (pid ${consumer.pid}) after ${done} sends`);
    await kill(consumer);
    await sleep(2000);
    consumer = await startConsumer(provider.url, runtime.queueArn);
    note(`consumer restarted (pid ${consumer.pid})`);

    await reach(0.65);
    note(`queue cut after ${done} sends`);
    await queueProxy.goDown();
    await sleep(4000);
    await queueProxy.comeBack();
    note('queue back');

    await stream;
    const lastSendAt = Date.now();
    note(`last send answered: ${accepted.size} accepted`);

    // Settling: poll the table until every accepted dispatch is final, within the bound.
    let dispatches = await readDispatches(store);
    for (;;) {
      const open = [...accepted.keys()].filter((id) => !['delivered', 'failed', 'canceled'].includes(dispatches.get(id)?.status ?? ''));
      console.log(`  ${((Date.now() - lastSendAt) / 1000).toFixed(0).padStart(4)} s after the last send: ${accepted.size - open.length}/${accepted.size} final`);
      if (!open.length || Date.now() - lastSendAt > SETTLE_LIMIT_MS) break;
      await sleep(10_000);
      dispatches = await readDispatches(store);
    }
    const settleSeconds = Math.round((Date.now() - lastSendAt) / 1000);
    // Reports still in flight through the duplicating proxy land before the events are counted.
    await webhook.drain();

    // Delivery events are written from the moves' stream records (decision 112), and the rollups
    // summed over the report projection's windows and written as each ends (decision 113): both
    // counted once every delivered dispatch has its DELIVERED event and the rollups match the
    // dispatches that count as sent, or after the bound.
    const streamStarted = Date.now();
    const eventCounts = new Map<string, Record<string, number>>();
    let countingAsSent = 0;
    let dayRollup = 0;
    let tagRollup = 0;
    for (;;) {
      const scanStarted = Date.now();
      const items = await scanTable(store);
      const scanMs = Date.now() - scanStarted;
      dispatches = new Map(items.filter((item) => item.entity === 'dispatch').map((item) => dispatchRow.parse(item)).map((row) => [row.dispatchId, row]));
      eventCounts.clear();
      dayRollup = 0;
      tagRollup = 0;
      for (const item of items) {
        if (item.entity === 'deliveryEvent') {
          const event = deliveryEventRow.parse(item);
          const counts = eventCounts.get(event.dispatchId) ?? {};
          counts[event.status] = (counts[event.status] ?? 0) + 1;
          eventCounts.set(event.dispatchId, counts);
        }
        if (item.entity === 'dayRollup') dayRollup += rollupRow.parse(item).dispatchCount;
        if (item.entity === 'tagRollup' && item.trackingTag === TAG) tagRollup += rollupRow.parse(item).dispatchCount;
      }
      countingAsSent = [...dispatches.values()].filter((dispatch) => dispatch.status === 'sent' || dispatch.status === 'delivered').length;
      const behind = [...dispatches.values()].filter((dispatch) => dispatch.status === 'delivered' && !eventCounts.get(dispatch.dispatchId)?.DELIVERED).length;
      if ((!behind && dayRollup === countingAsSent && tagRollup === countingAsSent) || Date.now() - streamStarted > STREAM_LIMIT_MS) break;
      console.log(`  ${((Date.now() - streamStarted) / 1000).toFixed(0).padStart(4)} s after settling: ${behind} DELIVERED events to come; rollups ${dayRollup} / ${tagRollup} of ${countingAsSent} (scan ${(scanMs / 1000).toFixed(1)} s)`);
      await sleep(Math.max(SCAN_PAUSE_MS, 3 * scanMs));
    }
    const streamSeconds = Math.round((Date.now() - streamStarted) / 1000);

    const problems: string[] = [];
    const outcomes: Record<string, number> = {};
    const unknownNeverSent: string[] = [];
    for (const [id, i] of accepted) {
      const dispatch = dispatches.get(id);
      const status = dispatch?.status ?? 'missing';
      outcomes[status] = (outcomes[status] ?? 0) + 1;
      const calls = provider.calls.get(id) ?? { taken: 0, rateLimited: 0 };
      if (status === 'unknown' && calls.taken === 0) unknownNeverSent.push(id);
      if (status !== expectedOf(i)) {
        const why = status === 'unknown' && calls.taken === 0 ? ': the consumer was killed between claiming it and calling the provider, which never saw it' : '';
        problems.push(`${id} (${phoneOf(i)}): ${status}, expected ${expectedOf(i)}${dispatch?.failureCode ? ` (${dispatch.failureCode})` : ''}${why}`);
      }
      if (calls.taken !== 1) problems.push(`${id} (${phoneOf(i)}): the provider took it ${calls.taken} times`);
      const counts = eventCounts.get(id) ?? {};
      const wantAccepted = expectedOf(i) === 'delivered' ? 1 : 0;
      if ((counts.ACCEPTED ?? 0) !== wantAccepted) problems.push(`${id} (${phoneOf(i)}): ${counts.ACCEPTED ?? 0} ACCEPTED events`);
      if ((counts.DELIVERED ?? 0) > 1 || (status === 'delivered' && counts.DELIVERED !== 1)) problems.push(`${id} (${phoneOf(i)}): ${counts.DELIVERED ?? 0} DELIVERED events`);
    }
    if (dayRollup !== countingAsSent) problems.push(`day rollups count ${dayRollup}, ${countingAsSent} dispatches count as sent`);
    if (tagRollup !== countingAsSent) problems.push(`tag rollups count ${tagRollup}, ${countingAsSent} dispatches count as sent`);
    const undocumented = [...fiveHundreds, ...webhook.fiveHundreds].filter((answer) => !(answer.status === 503 && answer.retryAfter) && !(answer.status === 502 && answer.error === 'upstream_unavailable'));
    for (const answer of undocumented) problems.push(`an undocumented ${answer.status} at ${answer.at} s (${String(answer.error)})`);
    for (const i of unanswered) problems.push(`send ${i} (${phoneOf(i)}) never accepted after ${SEND_RETRIES} tries`);

    const figures = {
      date: new Date().toISOString(),
      machine: machine(),
      sends: SENDS,
      concurrency: CONCURRENCY,
      sendSeconds: Math.round((lastSendAt - started) / 1000),
      answersByStatus: Object.fromEntries([...answers].sort()),
      fiveHundredsWindow: fiveHundreds.length ? `${fiveHundreds[0]!.at}–${fiveHundreds.at(-1)!.at} s` : 'none',
      accepted: accepted.size,
      outcomes,
      settleSeconds,
      settleLimitSeconds: SETTLE_LIMIT_MS / 1000,
      streamSeconds,
      unknownNeverSent: unknownNeverSent.length,
      providerCalls: { taken: [...provider.calls.values()].reduce((sum, c) => sum + c.taken, 0), rateLimited: [...provider.calls.values()].reduce((sum, c) => sum + c.rateLimited, 0) },
      webhookReports: { fromProvider: webhook.received, forwarded: webhook.forwarded, answersByStatus: webhook.answers },
      dispatchesTakenMoreThanOnce: [...accepted.keys()].filter((id) => (provider.calls.get(id)?.taken ?? 0) > 1).length,
      duplicateEvents: [...eventCounts.values()].filter((counts) => Object.values(counts).some((count) => count > 1)).length,
      streamRecordsGivenUp,
      dayRollup,
      tagRollup,
      countingAsSent,
      dispatchesInTable: dispatches.size,
      enqueueFailed: [...dispatches.values()].filter((dispatch) => dispatch.failureCode === 'enqueue_failed').length,
      killed: events,
      problems: problems.length,
    };
    console.log(JSON.stringify(figures, null, 2));
    if (problems.length) {
      console.log(`\n${problems.length} problems:`);
      for (const problem of problems.slice(0, 200)) console.log(`  ${problem}`);
    }
    writeFileSync(RESULTS_PATH, `${JSON.stringify({ ...figures, problemList: problems }, null, 2)}\n`);
    writeDoc(figures);
    console.log('\nWrote bench/chaos-results.json and the "Chaos run" figures in docs/failure-and-load.md');
    if (problems.length) process.exitCode = 1;
  } finally {
    await kill(consumer);
    await runtime.stop();
    await provider.close();
    await webhook.close();
    await queueProxy.close();
    await sqsEmulator.stop();
    await dynamodb.stop();
    rmSync(dataDir, { recursive: true, force: true });
  }
}

async function kill(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise((resolve) => child.once('exit', resolve));
  child.kill('SIGKILL');
  await exited;
}

function startConsumer(providerUrl: string, queueArn: string): Promise<ChildProcess> {
  const child = fork(join(import.meta.dirname, 'chaos-consumer.ts'), [], {
    execArgv: ['--import', 'tsx'],
    env: { ...process.env, CHAOS_PROVIDER_URL: providerUrl, CHAOS_QUEUE_ARN: queueArn },
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  return new Promise((resolve, reject) => {
    child.once('message', () => resolve(child));
    child.once('exit', (code) => reject(new Error(`chaos consumer exited with ${code}`)));
  });
}

/**
 * The sandbox, outside the consumer as WhatsApp is: the consumer calls it over HTTP. It counts, per
 * dispatch, the calls it took (accepted, timed out after accepting, or rejected for good) and the
 * calls it rate-limited; a killed consumer cannot lose that count, and its reports still go out.
 */
async function startProvider(callbackUrl: string) {
  const { sandboxProvider } = await import('../lambdas/domain/providers/sandbox');
  const { ProviderError } = await import('../lambdas/domain/providers/provider');
  const sandbox = sandboxProvider({ callbackUrl, appSecret: () => Promise.resolve(process.env.WHATSAPP_APP_SECRET ?? LOCAL_WHATSAPP.appSecret), reportDelayMs: 300 });
  const calls = new Map<string, { taken: number; rateLimited: number }>();
  const server = createServer((request, response) => {
    void (async () => {
      const message = JSON.parse(await bodyOf(request)) as Parameters<typeof sandbox.send>[0];
      const count = calls.get(message.dispatchId) ?? { taken: 0, rateLimited: 0 };
      calls.set(message.dispatchId, count);
      try {
        const { providerMessageId } = await sandbox.send(message);
        count.taken += 1;
        response.end(JSON.stringify({ providerMessageId }));
      } catch (error) {
        if (!(error instanceof ProviderError)) throw error;
        if (error.kind === 'transient') count.rateLimited += 1;
        else count.taken += 1;
        response.end(JSON.stringify({ error: { kind: error.kind, code: error.code, message: error.message } }));
      }
    })();
  });
  const url = await listen(server);
  return { url, calls, close: async () => { await sandbox.settle(); await closeServer(server); } };
}

/**
 * Where the sandbox sends its signed reports: takes each at once and forwards it to our webhook
 * twice, each copy after its own random delay of up to 3 s (so a later status often arrives
 * first), retrying a copy our webhook did not take as WhatsApp would.
 */
function startDuplicatingWebhookProxy(target: string) {
  const pending = new Set<Promise<void>>();
  const state = { received: 0, forwarded: 0, answers: {} as Record<string, number>, fiveHundreds: [] as { at: number; status: number; retryAfter: string | null; error: unknown }[] };
  const forward = async (body: string, signature: string) => {
    await sleep(Math.random() * 3000);
    for (let attempt = 1; attempt <= 12; attempt++) {
      try {
        const response = await fetch(target, { method: 'POST', headers: { 'content-type': 'application/json', 'x-hub-signature-256': signature }, body });
        state.answers[response.status] = (state.answers[response.status] ?? 0) + 1;
        const text = await response.text();
        if (response.status >= 500) state.fiveHundreds.push({ at: at(), status: response.status, retryAfter: response.headers.get('retry-after'), error: (JSON.parse(text || '{}') as { error?: string }).error });
        if (response.ok) {
          state.forwarded += 1;
          return;
        }
      } catch {
        state.answers['0'] = (state.answers['0'] ?? 0) + 1;
      }
      await sleep(Math.min(30_000, 500 * 2 ** attempt));
    }
  };
  const server = createServer((request, response) => {
    void bodyOf(request).then((body) => {
      state.received += 1;
      const signature = String(request.headers['x-hub-signature-256']);
      for (let copy = 0; copy < 2; copy++) {
        const sending = forward(body, signature);
        pending.add(sending);
        void sending.finally(() => pending.delete(sending));
      }
      response.end();
    });
  });
  return Object.assign(state, {
    url: listen(server),
    drain: async () => {
      while (pending.size) await Promise.all([...pending]);
    },
    close: () => closeServer(server),
  });
}

function bodyOf(request: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    request.on('error', reject);
  });
}

async function listen(server: Server): Promise<string> {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return `http://127.0.0.1:${(server.address() as { port: number }).port}`;
}

function closeServer(server: Server): Promise<void> {
  return new Promise((resolve) => {
    server.close(() => resolve());
    server.closeAllConnections();
  });
}

/** The parts of stored items the checks read (a script's view, not the domain's). */
const dispatchRow = z.object({ dispatchId: z.string(), status: z.string(), failureCode: z.string().optional() });
const deliveryEventRow = z.object({ dispatchId: z.string(), status: z.string() });
const rollupRow = z.object({ dispatchCount: z.number() });
type DispatchRow = z.infer<typeof dispatchRow>;

async function readDispatches(store: Store): Promise<Map<string, DispatchRow>> {
  const items = await scanTable(store, { expression: 'entity = :dispatch', values: { ':dispatch': 'dispatch' } });
  return new Map(items.map((item) => dispatchRow.parse(item)).map((row): [string, DispatchRow] => [row.dispatchId, row]));
}


const BEGIN = '<!-- chaos-figures:begin (written by npm run chaos) -->';
const END = '<!-- chaos-figures:end -->';

function writeDoc(r: Record<string, unknown> & { machine: ReturnType<typeof machine>; killed: typeof events }): void {
  const path = join(PROJECT_ROOT, 'docs', 'failure-and-load.md');
  const row = (name: string, value: unknown) => `| ${name} | ${typeof value === 'string' || typeof value === 'number' ? value : JSON.stringify(value)} |`;
  const section = [
    `Run on ${String(r.date)} with \`CHAOS_SENDS=${String(r.sends)} npm run chaos\`: ${r.machine.cpu}, ${r.machine.memoryGiB} GiB, ${r.machine.os}, Node ${r.machine.node}; everything on that machine.`,
    '',
    '| figure | value |',
    '|---|---|',
    row('sends (each to a different number; 5% each ending 0000, 0429, 0504)', `${String(r.sends)} over ${String(r.concurrency)} connections, ${String(r.sendSeconds)} s`),
    row('answers by status (retries with the same key included)', r.answersByStatus),
    row('5xx answers seen between', r.fiveHundredsWindow),
    row('accepted (202)', r.accepted),
    row('outcomes of accepted dispatches', r.outcomes),
    row(`seconds after the last send until every accepted dispatch was final (or the ${Number(r.settleLimitSeconds ?? 600)} s bound)`, r.settleSeconds),
    row('then seconds until every DELIVERED event and rollup was in (the stream readers, within 30 min)', r.streamSeconds ?? 'not recorded'),
    row('left `unknown` with no call to the provider (the consumer killed between claim and call)', r.unknownNeverSent),
    row('provider calls taken / rate-limited', r.providerCalls),
    row('reports from the provider / copies our webhook took', r.webhookReports),
    row('dispatches the provider took more than once', r.dispatchesTakenMoreThanOnce),
    row('dispatches with a duplicated delivery event', r.duplicateEvents),
    row('stream records a reader gave up on (a stack sends their description to its stream-failure queue)', r.streamRecordsGivenUp ?? 'not recorded'),
    row('day / tag rollups / dispatches counting as sent', `${String(r.dayRollup)} / ${String(r.tagRollup)} / ${String(r.countingAsSent)}`),
    row('dispatches in the table (incl. enqueue_failed from the queue cut)', `${String(r.dispatchesInTable)} (${String(r.enqueueFailed)})`),
    row('what was killed when', r.killed.map((event) => `${event.at} s: ${event.what}`).join('; ')),
    row('problems found', r.problems),
  ].join('\n');
  writeMarkedSection(path, BEGIN, END, section);
}

const RESULTS_PATH = join(PROJECT_ROOT, 'bench', 'chaos-results.json');

(process.argv.includes('--write-doc') ? Promise.resolve(writeDoc(JSON.parse(readFileSync(RESULTS_PATH, 'utf8')) as Parameters<typeof writeDoc>[0])) : main()).catch((error: unknown) => {
  console.error('chaos run failed:', error);
  process.exit(1);
});
