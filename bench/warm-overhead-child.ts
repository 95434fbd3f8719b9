import '../bin/node-check.cjs';
import { writeFileSync } from 'node:fs';
import { Writable } from 'node:stream';
import { lambdaContext } from '../lib/local/api-gateway-event';
import type { HttpMetadataSink } from '../lambdas/http/lambda-streaming';
import { routes, type RouteDefinition, type RouteId } from '../lambdas/routes';
import { routeEvent } from '../test/support/events';
import { replayNetwork } from './aws-replay';
import { callsOf, sendAnew, type Call } from './sdk-calls';

/**
 * Row 2, in its own process: the handlers read their configuration at import, and their clients'
 * network is swapped for a recording here, which must not touch the runtime the bench runs.
 * Run by bench/scenarios/warm-overhead.ts with the runtime's environment; writes JSON to argv[2].
 */
const WARM_UP = 200;
const ITERATIONS = 2_000;

async function main(): Promise<void> {
  const [outFile, apiKey, dispatchId] = process.argv.slice(2) as [string, string, string];
  const { dynamo, sqs } = await import('../lambdas/shared/clients');
  const networks = [replayNetwork(dynamo), replayNetwork(sqs)];
  const operations: { name: string; routeId: RouteId; handler: (...args: never[]) => unknown; event: () => unknown }[] = [
    {
      name: 'send',
      routeId: 'sendMessage',
      handler: (await import('../lambdas/handlers/send-message')).handler,
      event: () => routeEvent('sendMessage', { apiKey, body: { channel: 'whatsapp', to: '081234567890', content: { type: 'template', templateId: '7b0c5c3e-0000-4000-8000-000000000001', variables: { name: 'Budi', order: 'B-1' } } } }),
    },
    { name: 'status read', routeId: 'getMessage', handler: (await import('../lambdas/handlers/get-message')).handler, event: () => routeEvent('getMessage', { apiKey, pathParameters: { dispatchId } }) },
    {
      name: 'summary',
      routeId: 'trackingSummary',
      handler: (await import('../lambdas/handlers/tracking-summary')).handler,
      event: () => routeEvent('trackingSummary', { apiKey, query: { startDate: '2026-09-01', endDate: '2026-09-30', trackingTags: ['spring', 'summer', 'autumn', 'winter', 'always'] } }),
    },
  ];
  // The event and context are built before the clock starts: Lambda hands a handler both, so
  // building them is no part of a request's CPU (the SDK-only baseline is handed nothing).
  const prepare = (operation: (typeof operations)[number]) => {
    const event = operation.event();
    const context = lambdaContext(operation.routeId);
    const invoke = operation.handler as (...args: unknown[]) => Promise<unknown>;
    if (!(routes[operation.routeId] as RouteDefinition).streaming) return async () => ({ status: ((await invoke(event, context)) as { statusCode: number }).statusCode });
    // A streamed route (the summary, decision 229) is invoked as Lambda streams it: its status comes with the metadata.
    return async () => {
      let status = 200;
      const sink: HttpMetadataSink = new Writable({ write: (_chunk, _encoding, done) => done() });
      sink.setHttpMetadata = (metadata) => (status = metadata.statusCode ?? 200);
      await invoke(event, sink, context);
      return { status };
    };
  };
  const invoke = (operation: (typeof operations)[number]) => prepare(operation)();

  // Warm up against the emulators once (recording every answer), then only from the recording.
  for (const operation of operations) await invoke(operation);
  for (const network of networks) network.replay();
  for (let i = 0; i < WARM_UP; i++) for (const operation of operations) await invoke(operation);
  // Each route's baseline: an SDK-only handler making the calls one warm request made, on the
  // same clients against the same recording, so the difference is what our code costs.
  const baselines = new Map<string, SdkOnlyHandler>();
  for (const operation of operations) baselines.set(operation.name, sdkOnlyHandler(await callsOf([dynamo, sqs], () => invoke(operation))));
  for (let i = 0; i < WARM_UP; i++) for (const operation of operations) await timed(baselines.get(operation.name)!.handle);
  // Per request: elapsed time, which with no I/O is time on the CPU (or waiting for it on a busy
  // machine); process.cpuUsage() ticks too coarsely to time one request. Per operation: CPU
  // consumed over all its requests, which is the figure held against the baseline's. Route and
  // baseline requests alternate, so both see the same machine.
  const sides = { route: emptyTotals(operations), baseline: emptyTotals(operations) };
  const statuses = new Set<number>();
  for (let i = 0; i < ITERATIONS; i++) {
    for (const operation of operations) {
      const own = await timed(prepare(operation));
      sides.route.add(operation.name, own);
      statuses.add(own.status);
      sides.baseline.add(operation.name, await timed(baselines.get(operation.name)!.handle));
    }
  }
  writeFileSync(
    outFile,
    JSON.stringify({
      route: sides.route.result(),
      baseline: sides.baseline.result(),
      calls: Object.fromEntries([...baselines].map(([name, baseline]) => [name, baseline.commands])),
      statuses: [...statuses],
      misses: networks.reduce((sum, n) => sum + n.misses(), 0),
    }),
  );
}

interface SdkOnlyHandler {
  /** The command names, as the row prints them; calls made together are joined by "∥". */
  commands: string[];
  handle: () => Promise<{ status: number }>;
}

/**
 * A handler that only makes these calls, each command built anew from its input as a handler
 * written for them would, calls the route made together made together.
 */
function sdkOnlyHandler(groups: Call[][]): SdkOnlyHandler {
  const send = (call: Call) => sendAnew(call);
  return {
    commands: groups.map((group) => group.map(({ command }) => command.constructor.name.replace(/Command$/, '')).join(' ∥ ')),
    async handle() {
      for (const group of groups) await (group.length === 1 ? send(group[0]!) : Promise.all(group.map(send)));
      return { status: 200 };
    },
  };
}

/**
 * Elapsed time and process CPU of one request, and when it ran (µs on the monotonic clock the CPU
 * profile's timestamps use), so the profile's samples can be told apart by side.
 */
async function timed(request: () => Promise<{ status: number }>) {
  const before = process.cpuUsage();
  const started = process.hrtime.bigint();
  const { status } = await request();
  const ended = process.hrtime.bigint();
  const used = process.cpuUsage(before);
  return { ms: Number(ended - started) / 1e6, cpuMs: (used.user + used.system) / 1000, status, window: [Number(started / 1000n), Number(ended / 1000n)] as [number, number] };
}

/** Per operation: every request's elapsed time, and the mean CPU per request. */
function emptyTotals(operations: { name: string }[]) {
  const samples = new Map(operations.map((operation) => [operation.name, [] as number[]]));
  const windows = new Map(operations.map((operation) => [operation.name, [] as [number, number][]]));
  const cpuMs = new Map(operations.map((operation) => [operation.name, 0]));
  return {
    add(name: string, request: { ms: number; cpuMs: number; window: [number, number] }): void {
      samples.get(name)!.push(request.ms);
      windows.get(name)!.push(request.window);
      cpuMs.set(name, cpuMs.get(name)! + request.cpuMs);
    },
    result: () =>
      Object.fromEntries(operations.map(({ name }) => [name, { samples: samples.get(name)!, windows: windows.get(name)!, meanCpuMs: cpuMs.get(name)! / samples.get(name)!.length }])),
  };
}

main().then(
  () => process.exit(0),
  (error: unknown) => {
    console.error(error);
    process.exit(1);
  },
);
