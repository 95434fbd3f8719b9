import '../bin/node-check.cjs';
import { writeFileSync } from 'node:fs';
import { lambdaContext } from '../lib/local/api-gateway-event';
import type { RouteId } from '../lambdas/routes';
import { routeEvent } from '../test/support/events';
import { replayNetwork } from './aws-replay';

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
  const operations: { name: string; routeId: RouteId; handler: (event: never, context: never) => Promise<unknown>; event: () => unknown }[] = [
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
  const invoke = async (operation: (typeof operations)[number]) => {
    const event = operation.event();
    const context = lambdaContext(operation.routeId);
    const started = process.hrtime.bigint();
    const result = (await operation.handler(event as never, context as never)) as { statusCode: number };
    return { ms: Number(process.hrtime.bigint() - started) / 1e6, status: result.statusCode };
  };

  // Warm up against the emulators once (recording every answer), then only from the recording.
  for (const operation of operations) await invoke(operation);
  for (const network of networks) network.replay();
  for (let i = 0; i < WARM_UP; i++) for (const operation of operations) await invoke(operation);
  // Per request: elapsed time, which with no I/O is time on the CPU (or waiting for it on a busy
  // machine); process.cpuUsage() ticks too coarsely to time one request. Per operation: CPU
  // consumed over all its requests, as a cross-check of the mean.
  const samples = Object.fromEntries(operations.map((operation) => [operation.name, [] as number[]]));
  const cpuMs = Object.fromEntries(operations.map((operation) => [operation.name, 0]));
  const statuses = new Set<number>();
  for (let i = 0; i < ITERATIONS; i++) {
    for (const operation of operations) {
      const before = process.cpuUsage();
      const { ms, status } = await invoke(operation);
      const used = process.cpuUsage(before);
      cpuMs[operation.name]! += (used.user + used.system) / 1000;
      samples[operation.name]!.push(ms);
      statuses.add(status);
    }
  }
  const meanCpuMs = Object.fromEntries(Object.entries(cpuMs).map(([name, total]) => [name, total / ITERATIONS]));
  writeFileSync(outFile, JSON.stringify({ samples, meanCpuMs, statuses: [...statuses], misses: networks.reduce((sum, n) => sum + n.misses(), 0) }));
}

main().then(
  () => process.exit(0),
  (error: unknown) => {
    console.error(error);
    process.exit(1);
  },
);
