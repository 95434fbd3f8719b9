import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { build, type BuildOptions, type Metafile } from 'esbuild';
import { BUNDLING_ALIASES, FUNCTION_BUNDLING, FUNCTION_NODE_OPTIONS } from '../../lib/constructs/bundling';
import { lambdaContext } from '../../lib/local/api-gateway-event';
import { routeEntries, routes, type RouteDefinition, type RouteId } from '../../lambdas/routes';
import { routeEvent } from '../../test/support/events';
import { startAwsStub, type AwsRequest } from '../aws-replay';
import { median, ratioNumbers, valueNumbers, verdictOf, type Row } from '../harness';

const run = promisify(execFile);

/** Functions the stack deploys besides one per route, with the grants it gives them (lib/constructs/). */
const OTHER_FUNCTIONS: { handler: string; access: RouteDefinition['access'] }[] = [
  { handler: 'deliver', access: { table: 'readWrite', queue: 'send', secrets: 'whatsapp' } },
  // Re-enqueues stuck dispatches: the stack grants it the queue too (`sendsTo`), and the queue's
  // metrics in CloudWatch (`readsQueueMetrics`, decision 137).
  { handler: 'reconcile', access: { table: 'readWrite', queue: 'send', queueMetrics: 'read' } },
  // Writes the delivery events (decision 112).
  { handler: 'publish-webhook-events', access: { table: 'readWrite', webhookQueue: 'send' } },
  // Writes tag links and rollup sums (decision 113).
  { handler: 'project-reports', access: { table: 'readWrite' } },
  { handler: 'deliver-webhook-event', access: { table: 'readWrite', webhookQueue: 'send' } },
  { handler: 'sync-templates', access: { table: 'readWrite', secrets: 'whatsapp' } },
  { handler: 'usage-plan-authorizer', access: { table: 'read' } },
  // webhookFrontDoor=functionUrl: both webhook routes in one function.
  { handler: 'whatsapp-callbacks', access: { table: 'readWrite', secrets: 'whatsapp' } },
];
/** Row 1c's prototype: Powertools Logger's two entry points, resolved to a logger of our own. */
const SMALL_LOGGER = join(import.meta.dirname, '..', 'prototypes', 'small-logger.ts');
// Beside the stack's own aliases, which an `alias` option would otherwise replace.
const SMALL_LOGGER_ALIAS = { ...BUNDLING_ALIASES, '@aws-lambda-powertools/logger/middleware': SMALL_LOGGER, '@aws-lambda-powertools/logger': SMALL_LOGGER };
/** Row 1d's prototype: rows 2d–2f's thin stack (bench/prototypes/thin-stack-hooks.mjs) as bundle aliases. */
const THIN_STACK_ALIAS = {
  ...SMALL_LOGGER_ALIAS,
  // esbuild also rewrites an alias's subpaths: Middy's streaming mode, which the thin runner keeps,
  // stays Middy's (the more specific alias wins).
  '@middy/core/StreamifyResponse': join(process.cwd(), 'node_modules', '@middy', 'core', 'executionModeStreamifyResponse.js'),
  '@middy/core': join(import.meta.dirname, '..', 'prototypes', 'thin-middy.ts'),
};
/**
 * Fresh processes per side and route. At 9 a route's ratio moved by up to 0.24 between runs of the
 * same code, enough to flip its verdict; at 21 by 0.06 at most (bench/history.md, decision 130).
 */
const SAMPLES = 21;
const SIZE_TARGET = 1.2;
const INIT_TARGET = 1.25;
/** A function with no AWS client has an empty baseline, so it is held to a size instead of a ratio. */
const CLIENTLESS_SIZE_TARGET_KIB = 40;

/** lambdas/shared/store.ts `withoutCallLog`, as the baselines' clients are built as the functions' are. */
const WITHOUT_CALL_LOG = "const withoutCallLog = (client) => { client.middlewareStack.remove('loggerMiddleware'); return client; };";

/** The esbuild options `cdk synth` derives from the stack's bundling options. */
export function esbuildOptionsForStack(): BuildOptions {
  return {
    bundle: true,
    format: FUNCTION_BUNDLING.format,
    target: FUNCTION_BUNDLING.target,
    platform: FUNCTION_BUNDLING.platform,
    minify: FUNCTION_BUNDLING.minify,
    sourcemap: FUNCTION_BUNDLING.sourceMap,
    sourcesContent: FUNCTION_BUNDLING.sourcesContent,
    mainFields: FUNCTION_BUNDLING.mainFields,
    external: FUNCTION_BUNDLING.externalModules,
    alias: BUNDLING_ALIASES,
    banner: { js: FUNCTION_BUNDLING.banner },
    logLevel: 'error',
  };
}

/** Either queue grant means an SQS client: the send queue's or the integration events' queue. */
const grantsQueue = (access: RouteDefinition['access']) => Boolean(access.queue || access.webhookQueue);

/**
 * The baseline a function is held against: an entry that imports only the AWS SDK clients the
 * function's grants let it use, constructs them as lambdas/shared/clients.ts does, and answers
 * with one call to each.
 */
export function baselineSource(access: RouteDefinition['access']): string {
  const lines = ['const region = process.env.AWS_REGION;', WITHOUT_CALL_LOG];
  const calls: string[] = [];
  if (access.table) {
    lines.unshift("import { DynamoDBClient } from '@aws-sdk/client-dynamodb';", "import { DynamoDBDocumentClient, GetCommand } from '@aws-sdk/lib-dynamodb';");
    lines.push('const dynamo = DynamoDBDocumentClient.from(withoutCallLog(new DynamoDBClient({ region, endpoint: process.env.DYNAMODB_ENDPOINT })));');
    calls.push("await dynamo.send(new GetCommand({ TableName: process.env.TABLE_NAME, Key: { pk: 'BENCH#BASELINE', sk: 'BENCH#BASELINE' } }));");
  }
  if (grantsQueue(access)) {
    lines.unshift("import { SQSClient, SendMessageCommand } from '@aws-sdk/client-sqs';");
    lines.push('const sqs = withoutCallLog(new SQSClient({ region, endpoint: process.env.SQS_ENDPOINT }));');
    calls.push("await sqs.send(new SendMessageCommand({ QueueUrl: process.env.QUEUE_URL, MessageBody: '{}' }));");
  }
  if (access.secrets) {
    // Constructed, not called: the bench's functions read their secrets from the environment.
    lines.unshift("import { SecretsManagerClient } from '@aws-sdk/client-secrets-manager';");
    lines.push('export const secrets = new SecretsManagerClient({ region });');
  }
  if (access.queueMetrics) {
    // Constructed, not called: the bench runs on emulated queues, which CloudWatch knows nothing of.
    lines.unshift("import { CloudWatchClient } from '@aws-sdk/client-cloudwatch';");
    lines.push('export const cloudwatch = withoutCallLog(new CloudWatchClient({ region }));');
  }
  return [...lines, 'export const handler = async () => {', ...calls, "  return { statusCode: 200, body: '{}' };", '};'].join('\n');
}

/**
 * Row 1b's baseline for one route: the SDK clients its grants allow, constructed as
 * lambdas/shared/clients.ts does, and a handler that sends exactly the requests the route's first
 * answer sent (as recorded on the wire, so through the low-level commands), those sent together
 * together. Its time is the SDK's share of the cold start; the rest is ours.
 */
export function sameCallsSource(access: RouteDefinition['access'], calls: AwsRequest[][]): string {
  const commandsOf = (prefix: string) => [...new Set(calls.flat().flatMap(({ operation }) => (operation.startsWith(prefix) ? [`${operation.slice(prefix.length)}Command`] : [])))];
  const dynamoCommands = commandsOf('DynamoDB_20120810.');
  const sqsCommands = commandsOf('AmazonSQS.');
  const lines = ['const region = process.env.AWS_REGION;', WITHOUT_CALL_LOG];
  if (access.table) {
    lines.unshift(`import { DynamoDBClient, ${dynamoCommands.join(', ')} } from '@aws-sdk/client-dynamodb';`, "import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';");
    lines.push('export const dynamo = DynamoDBDocumentClient.from(withoutCallLog(new DynamoDBClient({ region, endpoint: process.env.DYNAMODB_ENDPOINT })));');
  }
  if (grantsQueue(access)) {
    lines.unshift(`import { SQSClient, ${sqsCommands.join(', ')} } from '@aws-sdk/client-sqs';`);
    lines.push('export const sqs = withoutCallLog(new SQSClient({ region, endpoint: process.env.SQS_ENDPOINT }));');
  }
  if (access.secrets) {
    lines.unshift("import { SecretsManagerClient } from '@aws-sdk/client-secrets-manager';");
    lines.push('export const secrets = new SecretsManagerClient({ region });');
  }
  const send = ({ operation, body }: AwsRequest) => {
    const [service, name] = operation.split('.') as [string, string];
    return `${service.startsWith('AmazonSQS') ? 'sqs' : 'dynamo'}.send(new ${name}Command(${body}))`;
  };
  const groups = calls.map((group) => `  await Promise.all([${group.map(send).join(', ')}]);`);
  return [...lines, 'export const handler = async () => {', ...groups, "  return { statusCode: 200, body: '{}' };", '};'].join('\n');
}

/** `GetItem + 16× Query ∥ 2× GetItem + …`: recorded calls by operation, those made together joined by ∥. */
function describeRequests(calls: AwsRequest[][]): string {
  const describeGroup = (group: AwsRequest[]) => {
    const counts = new Map<string, number>();
    for (const { operation } of group) counts.set(operation.split('.')[1]!, (counts.get(operation.split('.')[1]!) ?? 0) + 1);
    return [...counts].map(([name, n]) => (n > 1 ? `${n}× ${name}` : name)).join(' ∥ ');
  };
  return calls.map(describeGroup).join(' + ') || 'no calls';
}

/**
 * One cold start as a fresh Lambda container has it: import the bundle (the function's init), then
 * answer one request; prints one JSON line. Plain JavaScript run by \`node\`, so nothing but the
 * bundle is compiled or loaded. Usage: node child.mjs <bundle> <event.json>.
 */
const CHILD_SOURCE = `import { readFileSync } from 'node:fs';
import { Writable } from 'node:stream';
import { performance } from 'node:perf_hooks';
import { pathToFileURL } from 'node:url';

const [bundle, eventFile] = process.argv.slice(2);
const { event, functionName, streaming } = JSON.parse(readFileSync(eventFile, 'utf8'));
const context = {
  functionName,
  functionVersion: '$LATEST',
  invokedFunctionArn: \`arn:aws:lambda:local:000000000000:function:\${functionName}\`,
  memoryLimitInMB: '512',
  awsRequestId: 'bench-cold-start',
  logGroupName: \`/aws/lambda/\${functionName}\`,
  logStreamName: 'bench',
  getRemainingTimeInMillis: () => 10_000,
};

const started = performance.now();
const { handler } = await import(pathToFileURL(bundle).href);
const imported = performance.now();
// A streaming route is invoked as Lambda streams it: the answer's status comes with its metadata.
let streamed = {};
const stream = Object.assign(new Writable({ write: (_chunk, _encoding, done) => done() }), { setHttpMetadata: (metadata) => (streamed = metadata) });
const result = streaming ? (await handler(event, stream, context), streamed) : await handler(event, context);
const answered = performance.now();
process.stdout.write(
  \`\${JSON.stringify({ importMs: imported - started, answerMs: answered - imported, statusCode: result?.statusCode, maxRssKiB: process.resourceUsage().maxRSS })}\n\`,
);
// Keep-alive sockets would hold the process open; the sample is taken.
process.exit(0);
`;

const accessKey = (access: RouteDefinition['access']) => [access.table && 'table', grantsQueue(access) && 'queue', access.secrets && 'secrets', access.queueMetrics && 'cloudwatch'].filter(Boolean).join('+') || 'none';

interface Sample {
  importMs: number;
  answerMs: number;
  statusCode?: number;
  maxRssKiB: number;
}

/** Requests answered in the init comparison: the hot routes and one of each kind of read. */
function initRequests(apiKey: string, dispatchId: string): [RouteId, ReturnType<typeof routeEvent>][] {
  const period = { startDate: '2026-09-01', endDate: '2026-09-30' };
  return [
    ['health', routeEvent('health')],
    ['sendMessage', routeEvent('sendMessage', { apiKey, body: { channel: 'whatsapp', to: '081234567890', content: { type: 'template', templateId: '7b0c5c3e-0000-4000-8000-000000000001', variables: { name: 'Budi', order: 'B-1' } } } })],
    ['getMessage', routeEvent('getMessage', { apiKey, pathParameters: { dispatchId } })],
    ['listTemplates', routeEvent('listTemplates', { apiKey })],
    ['trackingSummary', routeEvent('trackingSummary', { apiKey, query: { ...period, trackingTags: 'spring' } })],
    ['trackingTags', routeEvent('trackingTags', { apiKey, query: period })],
  ];
}

/**
 * Row 1 (and row 7's handler process): every function's bundle built as the stack builds it,
 * against an SDK-only baseline with the same clients; then, for the hot routes, a fresh Node
 * process per sample that imports the bundle and answers one request. DynamoDB and SQS answer
 * from a recording (aws-replay.ts) so the time is our init and the SDK's, not the emulators'.
 * Function and baseline samples alternate; figures are medians and ratios.
 */
export async function coldStart(options: { env: NodeJS.ProcessEnv; apiKey: string; dispatchId: string; log: (line: string) => void }): Promise<Row[]> {
  const dir = mkdtempSync(join(tmpdir(), 'bench-bundles-'));
  const stub = await startAwsStub({ dynamodb: options.env.DYNAMODB_ENDPOINT!, sqs: options.env.SQS_ENDPOINT! });
  try {
    const functions = [...routeEntries.map(([, route]) => ({ handler: route.handler, access: route.access })), ...OTHER_FUNCTIONS];
    const bundleOf = async (name: string, options: Partial<BuildOptions>) => {
      const outfile = join(dir, name, 'index.mjs');
      const { metafile } = await build({ ...esbuildOptionsForStack(), ...options, outfile, metafile: true });
      return { file: outfile, kib: statSync(outfile).size / 1024, packages: kibByPackage(metafile) };
    };
    type Bundle = Awaited<ReturnType<typeof bundleOf>>;
    const baselines = new Map<string, Bundle>();
    const bundles = new Map<string, Bundle & { baseline: string }>();
    for (const fn of functions) {
      const key = accessKey(fn.access);
      if (!baselines.has(key)) {
        baselines.set(key, await bundleOf(`baseline-${key}`, { stdin: { contents: baselineSource(fn.access), resolveDir: process.cwd(), sourcefile: `baseline-${key}.mjs`, loader: 'js' } }));
      }
      bundles.set(fn.handler, { ...(await bundleOf(fn.handler, { entryPoints: [join(process.cwd(), 'lambdas', 'handlers', `${fn.handler}.ts`)] })), baseline: key });
    }

    const rows: Row[] = [];
    for (const [handler, bundle] of bundles) {
      const baseline = baselines.get(bundle.baseline)!;
      if (bundle.baseline === 'none') {
        const numbers = valueNumbers('KB', bundle.kib, CLIENTLESS_SIZE_TARGET_KIB);
        const verdict = verdictOf(numbers);
        rows.push({
          id: `1a ${handler}`,
          what: `bundle size, ${handler} (no AWS client, so no SDK baseline)`,
          figure: `${bundle.kib.toFixed(0)} KB`,
          target: `≤ ${CLIENTLESS_SIZE_TARGET_KIB} KB`,
          verdict,
          ...(verdict === 'missed' ? { note: `largest parts: ${largestExtras(bundle.packages, new Map())}` } : {}),
          numbers,
        });
        continue;
      }
      const numbers = ratioNumbers('KB', bundle.kib, baseline.kib, SIZE_TARGET);
      const verdict = verdictOf(numbers);
      rows.push({
        id: `1a ${handler}`,
        what: `bundle size, ${handler} (baseline: SDK clients for ${bundle.baseline})`,
        figure: `${bundle.kib.toFixed(0)} KB vs ${baseline.kib.toFixed(0)} KB (×${numbers.ratio!.toFixed(2)})`,
        target: `≤ ×${SIZE_TARGET}`,
        verdict,
        ...(verdict === 'missed' ? { note: `beyond the baseline: ${largestExtras(bundle.packages, baseline.packages)}` } : {}),
        numbers,
      });
    }

    rows.push(await smallLoggerRow(bundles, baselines, (name, entry) => bundleOf(`small-logger-${name}`, { entryPoints: [entry], alias: SMALL_LOGGER_ALIAS })));

    // Handler processes see the runtime's environment with DynamoDB and SQS pointed at the stub.
    const env = { ...options.env, DYNAMODB_ENDPOINT: stub.url, SQS_ENDPOINT: stub.url, POWERTOOLS_LOG_LEVEL: 'SILENT', NODE_OPTIONS: FUNCTION_NODE_OPTIONS };
    const child = join(dir, 'child.mjs');
    writeFileSync(child, CHILD_SOURCE);
    const sample = async (file: string, eventFile: string): Promise<Sample> => {
      const { stdout } = await run(process.execPath, [child, file, eventFile], { env, maxBuffer: 1 << 20 });
      return JSON.parse(stdout.trim().split('\n').at(-1)!) as Sample;
    };
    let peakRss = { kib: 0, handler: '' };
    const thinRatios: ThinInit[] = [];
    for (const [routeId, event] of initRequests(options.apiKey, options.dispatchId)) {
      const handler = routes[routeId].handler;
      const streaming = (routes[routeId] as RouteDefinition).streaming === true;
      const bundle = bundles.get(handler)!;
      const eventFile = join(dir, `${routeId}.event.json`);
      writeFileSync(eventFile, JSON.stringify({ event, functionName: lambdaContext(routeId).functionName, streaming }));
      // The function's first run records the emulators' answers and the calls it made; its
      // baseline makes those calls, and every sample is answered from the recording.
      stub.record();
      const recorded = await sample(bundle.file, eventFile);
      const calls = stub.recordedCalls();
      stub.replay();
      const fn = functions.find((candidate) => candidate.handler === handler)!;
      const baseline = await bundleOf(`same-calls-${handler}`, { stdin: { contents: sameCallsSource(fn.access, calls), resolveDir: process.cwd(), sourcefile: `same-calls-${handler}.mjs`, loader: 'js' } });
      const clientless = bundle.baseline === 'none';
      const thin = clientless ? undefined : await bundleOf(`thin-${handler}`, { entryPoints: [join(process.cwd(), 'lambdas', 'handlers', `${handler}.ts`)], alias: THIN_STACK_ALIAS });
      const own: Sample[] = [];
      const base: Sample[] = [];
      const thinSamples: Sample[] = [];
      for (let i = 0; i < SAMPLES; i++) {
        own.push(await sample(bundle.file, eventFile));
        base.push(await sample(baseline.file, eventFile));
        if (thin) thinSamples.push(await sample(thin.file, eventFile));
      }
      const total = (s: Sample) => s.importMs + s.answerMs;
      const ownMs = median(own.map(total));
      const baseMs = median(base.map(total));
      const numbers = ratioNumbers('ms', ownMs, baseMs, clientless ? null : INIT_TARGET);
      const ratio = numbers.ratio!;
      const verdict = verdictOf(numbers);
      const statuses = [...new Set([recorded, ...own].map((s) => s.statusCode))].join('/');
      const rss = Math.max(...own.map((s) => s.maxRssKiB));
      if (rss > peakRss.kib) peakRss = { kib: rss, handler };
      options.log(`  ${handler}: ${ownMs.toFixed(0)} ms vs ${baseMs.toFixed(0)} ms (status ${statuses})`);
      const answered = statuses.split('/').every((status) => /^2/.test(status)) ? [] : [`answered ${statuses}`];
      rows.push({
        id: `1b ${handler}`,
        what: `cold start ${routes[routeId].method} ${routes[routeId].path}: import + first answer, median of ${SAMPLES} fresh processes, vs an SDK-only handler making its calls (${describeRequests(calls)})`,
        figure: `${ownMs.toFixed(0)} ms (import ${median(own.map((s) => s.importMs)).toFixed(0)}) vs ${baseMs.toFixed(0)} ms (×${ratio.toFixed(2)})`,
        // An empty handler's cold start is Node's own: no ratio to it means anything, so the
        // function is held to its bundle size (row 1a) and its time is reported.
        target: clientless ? 'reported' : `≤ ×${INIT_TARGET}`,
        verdict,
        ...(verdict !== 'missed'
          ? answered.length
            ? { note: answered.join('; ') }
            : {}
          : { note: [...answered, `import time follows the code beyond the baseline (row 1a ${handler}: ${(bundle.kib - baseline.kib).toFixed(0)} KB more to load)`].join('; ') }),
        numbers,
      });
      if (thin) {
        const thinMs = median(thinSamples.map(total));
        const thinStatuses = [...new Set(thinSamples.map((s) => s.statusCode))].join('/');
        thinRatios.push({ handler, ms: thinMs, baseMs, ratio: thinMs / baseMs, answered: thinStatuses.split('/').every((status) => /^2/.test(status)) ? undefined : thinStatuses });
      }
    }
    rows.push(thinStackInitRow(thinRatios));
    rows.push({
      id: '7b',
      what: 'peak RSS of one handler process (import + one request)',
      figure: `${(peakRss.kib / 1024).toFixed(0)} MiB (${peakRss.handler})`,
      target: 'reported',
      verdict: 'reported',
      numbers: valueNumbers('MiB', peakRss.kib / 1024, null),
    });
    return rows;
  } finally {
    await stub.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

interface ThinInit {
  handler: string;
  ms: number;
  baseMs: number;
  ratio: number;
  /** The statuses it answered, when one was not a 2xx. */
  answered?: string;
}

/**
 * Row 1d: row 1b's routes bundled with rows 2d–2f's thin stack (Middy's core and Powertools Logger
 * replaced by bench/prototypes/thin-middy.ts and small-logger.ts), sampled in turn with the
 * function and its baseline: what that design would give the cold-start target.
 */
function thinStackInitRow(measured: ThinInit[]): Row {
  const numbers = valueNumbers('routes meeting row 1b\'s target', measured.filter((m) => m.ratio <= INIT_TARGET && !m.answered).length, measured.length, { bound: 'at least' });
  return {
    id: '1d',
    what: 'PROTOTYPE, not the stack: row 1b with Middy’s core and Powertools Logger replaced by bench/prototypes/thin-middy.ts and small-logger.ts (as rows 2d–2f), sampled in turn with row 1b',
    figure: measured.map((m) => `${m.handler} ${m.ms.toFixed(0)} ms (×${m.ratio.toFixed(2)})`).join(', '),
    target: `every route ≤ ×${INIT_TARGET}`,
    verdict: verdictOf(numbers),
    ...(measured.some((m) => m.answered) ? { note: measured.flatMap((m) => (m.answered ? [`${m.handler} answered ${m.answered}`] : [])).join('; ') } : {}),
    numbers,
  };
}

/**
 * Row 1c: every function bundled again with the prototype logger (bench/prototypes/small-logger.ts)
 * in place of Powertools Logger, against the same baselines: how many would meet row 1a's target.
 */
async function smallLoggerRow(
  bundles: Map<string, { kib: number; baseline: string }>,
  baselines: Map<string, { kib: number; packages: Map<string, number> }>,
  bundleWithSmallLogger: (name: string, entry: string) => Promise<{ kib: number; packages: Map<string, number> }>,
): Promise<Row> {
  const measured: { handler: string; kib: number; ratio: number; todayMet: boolean; met: boolean; extras: string }[] = [];
  for (const [handler, bundle] of bundles) {
    if (bundle.baseline === 'none') continue;
    const baseline = baselines.get(bundle.baseline)!;
    const small = await bundleWithSmallLogger(handler, join(process.cwd(), 'lambdas', 'handlers', `${handler}.ts`));
    const ratio = small.kib / baseline.kib;
    measured.push({ handler, kib: small.kib, ratio, todayMet: bundle.kib / baseline.kib <= SIZE_TARGET, met: ratio <= SIZE_TARGET, extras: largestExtras(small.packages, baseline.packages, 3) });
  }
  const numbers = valueNumbers('functions meeting row 1a\'s target', measured.filter((m) => m.met).length, measured.length, { bound: 'at least' });
  const today = measured.filter((m) => m.todayMet).length;
  const saved = median([...bundles].flatMap(([handler, bundle]) => measured.filter((m) => m.handler === handler).map((m) => bundle.kib - m.kib)));
  const missed = measured.filter((m) => !m.met).sort((a, b) => b.ratio - a.ratio);
  return {
    id: '1c',
    what: 'PROTOTYPE, not the stack: row 1a with Powertools Logger replaced by a logger of our own (bench/prototypes/small-logger.ts), every function with an SDK baseline',
    figure: `${numbers.measured} of ${measured.length} functions ≤ ×${SIZE_TARGET} (row 1a: ${today}); ${saved.toFixed(0)} KB less each (median)`,
    target: `every function ≤ ×${SIZE_TARGET}`,
    verdict: verdictOf(numbers),
    ...(missed.length ? { note: `still beyond: ${missed.map((m) => `${m.handler} ×${m.ratio.toFixed(2)} (${m.extras})`).join('; ')}` } : {}),
    numbers,
  };
}

/** Minified bytes each package (or our own top-level folder) contributes to a bundle, in KiB. */
function kibByPackage(metafile: Metafile): Map<string, number> {
  const sizes = new Map<string, number>();
  for (const output of Object.values(metafile.outputs)) {
    for (const [path, { bytesInOutput }] of Object.entries(output.inputs)) {
      const inModules = path.split('node_modules/').at(-1)!;
      const parts = inModules.split('/');
      const name = path.includes('node_modules/') ? parts.slice(0, parts[0]!.startsWith('@') ? 2 : 1).join('/') : `${parts[0]}/`;
      sizes.set(name, (sizes.get(name) ?? 0) + bytesInOutput / 1024);
    }
  }
  return sizes;
}

/** The packages that grow a bundle most over its baseline: where a size miss comes from. */
function largestExtras(own: Map<string, number>, baseline: Map<string, number>, count = 4): string {
  return [...own]
    .map(([name, kib]) => [name, kib - (baseline.get(name) ?? 0)] as const)
    .filter(([, extra]) => extra >= 1)
    .sort((a, b) => b[1] - a[1])
    .slice(0, count)
    .map(([name, extra]) => `${name} ${extra.toFixed(0)} KB`)
    .join(', ');
}
