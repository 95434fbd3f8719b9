import { AsyncLocalStorage } from 'node:async_hooks';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { cpus, totalmem, platform, release } from 'node:os';
import { join } from 'node:path';
import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import type { SQSClient } from '@aws-sdk/client-sqs';
import type { SerializeMiddleware } from '@smithy/types';
import { batchGet } from '../lambdas/shared/batch-get';
import { tableDefinition } from '../lambdas/shared/table';
import { actionTarget, transactionWriteUnits, type TransactAction } from './write-units';

/** One line of the benchmark table. Every figure comes from a run; none is typed in. */
export interface Row {
  id: string;
  what: string;
  figure: string;
  target: string;
  verdict: 'met' | 'missed' | 'reported';
  note?: string;
  /** The figure as numbers, for tools reading bench/results.json: what was measured against what. */
  numbers: RowNumbers;
}

/** Which side of its target a figure must stay on. */
export type Bound = 'at most' | 'at least';

/**
 * A row's figure in numbers: the value measured, the baseline measured beside it in the same run
 * and their ratio (null where there is none), the target and `passes`, which says what the target
 * bounds (the ratio, or the measured value in `unit`) and from which side. `target` and `passes`
 * are null on a row that only reports. A row's verdict may ask more than its numbers (row 3: no
 * failed send on either side), never less.
 */
export interface RowNumbers {
  unit: string;
  measured: number;
  baseline: number | null;
  ratio: number | null;
  target: number | null;
  passes: `${'measured' | 'ratio'} ${'<=' | '>='} target` | null;
}

const comparison = (bound: Bound) => (bound === 'at most' ? '<=' : '>=');

/** Numbers for a figure held to a ratio of a baseline measured in the same run (a null target: reported). */
export function ratioNumbers(unit: string, measured: number, baseline: number, target: number | null, bound: Bound = 'at most'): RowNumbers {
  return { unit, measured, baseline, ratio: measured / baseline, target, passes: target === null ? null : `ratio ${comparison(bound)} target` };
}

/**
 * Numbers for a figure held to a value in its own unit (a null target: reported); a baseline, where
 * the row compares with one, is shown beside it with the ratio.
 */
export function valueNumbers(unit: string, measured: number, target: number | null, options: { bound?: Bound; baseline?: number } = {}): RowNumbers {
  const { bound = 'at most', baseline } = options;
  return {
    unit,
    measured,
    baseline: baseline ?? null,
    ratio: baseline === undefined ? null : measured / baseline,
    target,
    passes: target === null ? null : `measured ${comparison(bound)} target`,
  };
}

/** Whether the numbers meet their target: what every verdict of 'met' needs. Null on a row that only reports. */
export function meetsTarget(numbers: RowNumbers): boolean | null {
  if (numbers.passes === null || numbers.target === null) return null;
  const [of, op] = numbers.passes.split(' ') as ['measured' | 'ratio', '<=' | '>='];
  const value = numbers[of];
  if (value === null) return false;
  return op === '<=' ? value <= numbers.target : value >= numbers.target;
}

/** A verdict from numbers alone, for rows whose target is all their verdict asks. */
export const verdictOf = (numbers: RowNumbers): Row['verdict'] => {
  const met = meetsTarget(numbers);
  return met === null ? 'reported' : met ? 'met' : 'missed';
};

/** One function invocation on the local runtime, as Lambda would bill and log it. */
export interface Invocation {
  functionName: string;
  /** Wall time of the handler, as Lambda's billed duration counts it (before rounding up to the ms). */
  ms: number;
  calls: AwsCall[];
  /** Bytes and lines the function wrote to stdout (its log lines and EMF metrics): what CloudWatch Logs ingests. */
  logBytes: number;
  logLines: number;
  /** Of those, the EMF metric lines: a function flushes its metrics once an invocation, however many records it took. */
  metricBytes: number;
  metricLines: number;
  /** SQS records in the event (the deliver consumer's batch), else 0. */
  records: number;
  /** What it logged, kept only when BENCH_KEEP_LOGS is set (to see what the bytes are). */
  logText?: string[];
  /** Time the harness spent reading a transaction's items for its units (`instrument`): not the function's. */
  harnessMs: number;
}

/**
 * Meters every function invocation of the local runtime (its `invoke` option): duration, AWS
 * calls (with `instrument`) and what the function logs, which is counted and kept off the bench's
 * own output. Recording is on between `start()` and `stop()`.
 */
export function functionMeter() {
  const current = new AsyncLocalStorage<Invocation>();
  let recorded: Invocation[] | undefined;
  // Both streams: Powertools writes warnings and errors to stderr.
  for (const stream of [process.stdout, process.stderr]) {
    const write = stream.write.bind(stream) as (...args: unknown[]) => boolean;
    const tap = (chunk: string | Uint8Array, ...rest: unknown[]) => {
      const invocation = current.getStore();
      if (!invocation) return write(chunk, ...rest);
      const text = typeof chunk === 'string' ? chunk : Buffer.from(chunk).toString('utf8');
      invocation.logBytes += Buffer.byteLength(text);
      const lines = text.split('\n').filter(Boolean);
      invocation.logLines += lines.length;
      for (const line of lines.filter((candidate) => candidate.startsWith('{"_aws":'))) {
        invocation.metricBytes += Buffer.byteLength(line) + 1;
        invocation.metricLines += 1;
      }
      invocation.logText?.push(text);
      (rest.find((arg) => typeof arg === 'function') as (() => void) | undefined)?.();
      return true;
    };
    stream.write = tap;
  }
  let running = 0;
  let lastEnded = performance.now();
  return {
    current,
    invoke: async <T>(functionName: string, work: () => Promise<T>, event?: unknown): Promise<T> => {
      const records = (event as { Records?: unknown[] } | undefined)?.Records?.length ?? 0;
      const invocation: Invocation = { functionName, ms: 0, calls: [], logBytes: 0, logLines: 0, metricBytes: 0, metricLines: 0, records, harnessMs: 0, ...(process.env.BENCH_KEEP_LOGS ? { logText: [] } : {}) };
      const started = performance.now();
      running++;
      try {
        return await current.run(invocation, work);
      } finally {
        invocation.ms = performance.now() - started - invocation.harnessMs;
        recorded?.push(invocation);
        running--;
        lastEnded = performance.now();
      }
    },
    /**
     * Resolves once no function has run for `quietMs` (or after `maxMs`): what a row queued (the
     * sandbox's later reports, the stream readers' records) is done, and no longer competes with a
     * row measured in a child process for the same 2 cores.
     */
    async quiet(quietMs = 2_000, maxMs = 60_000): Promise<void> {
      const deadline = performance.now() + maxMs;
      while ((running > 0 || performance.now() - lastEnded < quietMs) && performance.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 100));
    },
    /** Whether invocations are being recorded (between `start()` and `stop()`). */
    recording: () => recorded !== undefined,
    start(): void {
      recorded = [];
    },
    stop(): Invocation[] {
      const done = recorded ?? [];
      recorded = undefined;
      return done;
    },
  };
}

export type FunctionMeter = ReturnType<typeof functionMeter>;

export interface AwsCall {
  service: 'dynamodb' | 'sqs';
  command: string;
  /**
   * Capacity units DynamoDB reported (ReturnConsumedCapacity=INDEXES); for a TransactWriteItems,
   * the units DynamoDB charges for it by its documented rules (bench/write-units.ts), as DynamoDB
   * Local under-reports transactions.
   */
  capacity: number;
  /** Items the call returned (Query Count, BatchGet responses, GetItem's item). */
  items: number;
  /** Of `capacity`, what the table's global secondary indexes consumed. */
  indexCapacity: number;
  /** Messages a send put on a queue: 1 for SendMessage, its entries for SendMessageBatch; else 0. */
  messages: number;
  /** Wall time of the call, answer included (failed calls are not recorded). */
  ms: number;
  /** What DynamoDB Local reported, where `capacity` is priced by the rules instead (a TransactWriteItems). */
  reported?: { capacity: number; indexCapacity: number };
}

/**
 * Records every call the given clients make, asking DynamoDB to report the capacity each one
 * consumed. Attached to the handlers' own module-scope clients, so what is counted is exactly
 * what a function would send.
 */
export function instrument(clients: { dynamodb: DynamoDBDocumentClient; sqs: SQSClient }, functions?: FunctionMeter) {
  // Only calls made inside a measured piece of work count, not the consumer running beside it.
  const measuring = new AsyncLocalStorage<AwsCall[]>();
  // The harness's own reads of a transaction's items (the document client's actions hold JavaScript
  // values here: it marshalls after this middleware) are neither counted nor timed as the function's.
  const harnessRead = new AsyncLocalStorage<true>();
  const readItems = async (actions: TransactAction[]): Promise<(Record<string, unknown> | undefined)[]> => {
    const started = performance.now();
    const targets = actions.map(actionTarget);
    const found = new Map<string, Record<string, unknown>>();
    for (const tableName of new Set(targets.map((target) => target.tableName))) {
      const items = await harnessRead.run(true, () => batchGet({ db: clients.dynamodb, tableName }, targets.filter((target) => target.tableName === tableName).map((target) => target.key)));
      for (const item of items) found.set(`${tableName}|${String(item[tableDefinition.partitionKey])}|${String(item[tableDefinition.sortKey])}`, item);
    }
    const invocation = functions?.current.getStore();
    if (invocation) invocation.harnessMs += performance.now() - started;
    return targets.map(({ tableName, key }) => found.get(`${tableName}|${key.pk}|${key.sk}`));
  };
  const counter =
    (service: AwsCall['service']): SerializeMiddleware<object, object> =>
    (next, context) =>
    async (args) => {
      if (harnessRead.getStore()) return next(args);
      const input = args.input as Record<string, unknown>;
      if (service === 'dynamodb') input.ReturnConsumedCapacity = 'INDEXES';
      const command = context.commandName ?? 'unknown';
      // Priced only where the call is recorded: the reads would slow the rows that time sends.
      const recorded = measuring.getStore() !== undefined || (functions?.recording() === true && functions.current.getStore() !== undefined);
      const transaction = recorded && command === 'TransactWriteItemsCommand' ? (input.TransactItems as TransactAction[]) : undefined;
      const before = transaction && (await readItems(transaction));
      const started = performance.now();
      const result = await next(args);
      const ms = performance.now() - started;
      const after = transaction && (await readItems(transaction));
      type Consumed = { CapacityUnits?: number; GlobalSecondaryIndexes?: Record<string, { CapacityUnits?: number }> };
      const output = result.output as {
        ConsumedCapacity?: Consumed | Consumed[];
        Count?: number;
        Item?: unknown;
        Responses?: Record<string, unknown[]>;
      };
      const consumed = [output.ConsumedCapacity ?? []].flat();
      const reported = {
        capacity: consumed.reduce((sum, entry) => sum + (entry.CapacityUnits ?? 0), 0),
        indexCapacity: consumed.reduce((sum, entry) => sum + Object.values(entry.GlobalSecondaryIndexes ?? {}).reduce((total, index) => total + (index.CapacityUnits ?? 0), 0), 0),
      };
      const priced = transaction && transactionWriteUnits(transaction, before!, after!);
      const items = output.Count ?? (output.Responses ? Object.values(output.Responses).reduce((sum, list) => sum + list.length, 0) : output.Item ? 1 : 0);
      const messages = command === 'SendMessageCommand' ? 1 : command === 'SendMessageBatchCommand' ? ((input.Entries as unknown[] | undefined)?.length ?? 0) : 0;
      const call: AwsCall = priced
        ? { service, command, capacity: priced.table + priced.index, indexCapacity: priced.index, reported, items, messages, ms }
        : { service, command, ...reported, items, messages, ms };
      measuring.getStore()?.push(call);
      functions?.current.getStore()?.calls.push(call);
      return result;
    };
  const options = { step: 'serialize', priority: 'high' } as const;
  clients.dynamodb.middlewareStack.add(counter('dynamodb') as never, { ...options, name: 'bench-counter-dynamodb' });
  clients.sqs.middlewareStack.add(counter('sqs') as never, { ...options, name: 'bench-counter-sqs' });
  return {
    /** Runs `work` and returns the calls it made. */
    async measure(work: () => Promise<unknown>): Promise<AwsCall[]> {
      const calls: AwsCall[] = [];
      await measuring.run(calls, work);
      return calls;
    },
  };
}

export const itemsRead = (calls: AwsCall[]) => calls.reduce((sum, call) => sum + call.items, 0);

export const median = (values: number[]) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)]!;
};

/** The smallest value with at least p % of the values at or below it. */
export const percentile = (values: number[], p: number) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))]!;
};

export const describeCalls = (calls: AwsCall[]) => {
  const counts = new Map<string, number>();
  for (const call of calls) counts.set(call.command.replace(/Command$/, ''), (counts.get(call.command.replace(/Command$/, '')) ?? 0) + 1);
  const capacity = calls.reduce((sum, call) => sum + call.capacity, 0);
  return `${[...counts].map(([name, n]) => `${n}× ${name}`).join(' + ') || 'no calls'} (${capacity} CU)`;
};

/** True when the calls are exactly these commands, in this order. */
export const sameCalls = (calls: AwsCall[], commands: string[]) => calls.map((call) => call.command).join() === commands.join();

export function machine() {
  const cpu = cpus();
  return {
    cpu: `${cpu.length} × ${cpu[0]?.model.trim() ?? 'unknown'}`,
    memoryGiB: Math.round(totalmem() / 2 ** 30),
    os: `${platform()} ${release()}`,
    node: process.version,
  };
}

/** Comparisons across runs (bench/history.md, written by hand) outlive each rewrite of this page. */
const history = (root: string) => {
  const path = join(root, 'bench', 'history.md');
  return existsSync(path) ? `\n${readFileSync(path, 'utf8')}` : '';
};

export function writeReports(rows: Row[], root: string, startedAt: Date, seconds: number): void {
  const info = machine();
  mkdirSync(join(root, 'bench'), { recursive: true });
  writeFileSync(join(root, 'bench', 'results.json'), `${JSON.stringify({ date: startedAt.toISOString(), seconds, machine: info, rows }, null, 2)}\n`);
  const table = [
    '| # | what | figure | target | verdict |',
    '|---|---|---|---|---|',
    ...rows.map((row) => `| ${row.id} | ${row.what} | ${row.figure} | ${row.target} | ${row.verdict}${row.note ? ` — ${row.note}` : ''} |`),
  ].join('\n');
  writeFileSync(
    join(root, 'docs', 'benchmarks.md'),
    `# Benchmarks

Written by \`npm run bench\` on ${startedAt.toISOString()} in ${seconds.toFixed(0)} s. Do not edit by hand: rerun it.

Machine: ${info.cpu}, ${info.memoryGiB} GiB, ${info.os}, Node ${info.node}. DynamoDB Local and the SQS
emulator run on the same machine, so times are relative; call counts and capacity units are exact
(a TransactWriteItems priced by DynamoDB's rules from its items, as DynamoDB Local under-reports
transactions: bench/write-units.ts, decision 98).

${table}

How the rows are measured:
- 1a: each function bundled with esbuild from lib/constructs/bundling.ts (the options the stack builds with), against a
  bundle of only the AWS SDK clients its grants allow (lambdas/routes.ts \`access\`; the stack's grants for the functions
  that serve no route), constructed and called once. A function with no AWS client (health) has no such baseline and
  is held to 40 KB; its cold start is reported. 1c: the same bundles built again with Powertools Logger resolved to a
  prototype logger (bench/prototypes/small-logger.ts), against the same baselines.
- 1b: a fresh \`node --enable-source-maps\` process per sample imports the bundle and answers one API Gateway event;
  DynamoDB and SQS answer from a recording on loopback (bench/aws-replay.ts), so the time is init plus our code and the
  SDK's. The baseline imports the clients the function's grants allow and sends the requests the function's first
  answer sent, as recorded. Function and baseline samples alternate; medians. Node's own boot is not included. 1d: the
  same routes bundled with 2d–2f's thin stack (Middy's core and Powertools Logger replaced by the prototypes), sampled
  in turn with 1b's function and baseline.
- 2: handlers invoked in a child process with the clients' network replaced by the recording, against an SDK-only
  handler that sends the commands one warm request of the route sent (concurrent ones together), on the same clients
  against the same recording, requests alternating; mean process CPU per request, elapsed p50/p99 beside it. The
  run is CPU-profiled and each request's start and end kept, so a miss says where the route's extra CPU went: each
  side's samples per request by area (SDK, our code, zod, Middy, …), route minus baseline. Event and context are built
  before the clock starts. 2d–2f: the same in a second child whose module resolution sends \`@middy/core\` and
  Powertools Logger to bench/prototypes/thin-middy.ts and small-logger.ts (bench/prototypes/thin-stack.mjs), held
  against that child's own SDK-only baselines; the row fails if either library ran. 3: autocannon over HTTP against the same transaction and message sent directly with the
  SDK, rounds alternating, in a child process whose local runtime serves the API alone (no deliver consumer or stream
  readers: deployed, they are other functions; decision 127), both sides writing the bench runtime's table and sending
  to a queue nothing reads. 4d: dispatches written by the send path onto queues of the bench's own, taken through the
  runtime's queue poller (4 batches of 10 in flight) in a child process whose sandbox reports nothing, by the deployed
  deliver handler and, rounds alternating, by a handler that replays the DynamoDB calls one warm delivery made, with
  each record's dispatch id, number and conversation put in. 6e: one day's report entries at 10^5 queried through the
  functions' document client and through one built as the SDK builds it by default, reads alternating; medians of
  the bench process's CPU (DynamoDB Local runs in another). 7a: RSS sampled every 50 ms in the bench process, which
  hosts the runtime and autocannon.
- 8: 200 sandbox sends reported sent, delivered and read, each function invocation metered (duration, AWS calls and
  capacity, log bytes) and priced at AWS list prices; what is assumed, and the write floor: docs/cost.md. 8l, 8m: 100
  more sends, each with an Idempotency-Key, the send function's difference priced on 8a and 8k.

Rerun: \`npm run bench\` (needs Java 17+ for DynamoDB Local); \`npm run bench -- --only 1,3\` runs some rows and writes
nothing; when row 8 is left out and row 3, 4 or 6 runs, 300 sends settle first to warm DynamoDB Local's JVM, as row
8's sends do in a full run. Machine-readable results: \`bench/results.json\` (each row's \`numbers\` carry the measured value, its baseline,
the ratio and the target as numbers, and \`passes\`: which of them the target bounds, and from which side).
${history(root)}`,
  );
}

export function printTable(rows: Row[]): void {
  const columns = ['id', 'what', 'figure', 'target', 'verdict'] as const;
  const widths = columns.map((key) => Math.max(key.length, ...rows.map((row) => row[key].length)));
  const line = (cells: string[]) => cells.map((cell, i) => cell.padEnd(widths[i]!)).join('  ');
  console.log(line(['#', 'what', 'figure', 'target', 'verdict']));
  for (const row of rows) console.log(line([row.id, row.what, row.figure, row.target, row.verdict]) + (row.note ? `\n    ↳ ${row.note}` : ''));
}

/**
 * Replaces what stands between `begin` and `end` (both kept) in a hand-written doc, so a run's
 * figures can live inside prose that explains them.
 */
export function writeMarkedSection(path: string, begin: string, end: string, section: string): void {
  const doc = readFileSync(path, 'utf8');
  const start = doc.indexOf(begin);
  const stop = doc.indexOf(end);
  if (start < 0 || stop < 0) throw new Error(`${path} has no ${begin} … ${end} markers`);
  writeFileSync(path, `${doc.slice(0, start)}${begin}\n\n${section}\n\n${end}${doc.slice(stop + end.length)}`);
}
