import '../bin/sdk-notice';
import { startLocalRuntime } from '../lib/local/runtime';
import { PROJECT_ROOT } from '../lib/local/paths';
import { instrument, printTable, writeReports, type Row } from './harness';

process.env.POWERTOOLS_LOG_LEVEL ??= 'SILENT';

/**
 * `npm run bench`: measures the system against its targets and writes bench/results.json and
 * docs/benchmarks.md. Runs on the local runtime (DynamoDB Local + SQS emulator), in-process.
 */
async function main(): Promise<void> {
  const startedAt = new Date();
  const runtime = await startLocalRuntime({ port: 0, namePrefix: 'bench' });
  try {
    // Imported after the runtime set the environment: these are the handlers' own clients.
    const { dynamo, sqs } = await import('../lambdas/shared/clients');
    const meter = instrument({ dynamodb: dynamo, sqs });
    const { costPerOperation } = await import('./scenarios/cost-per-operation');
    const { deliveryLatency } = await import('./scenarios/delivery-latency');
    const { reportScaling } = await import('./scenarios/report-scaling');
    const { defaultStore } = await import('../lambdas/shared/default-store');

    const cost = await costPerOperation(meter, 'msk_local_demo_0001');
    const latency = await deliveryLatency(runtime.url, 'msk_local_demo_0001');
    console.log('Seeding report data…');
    const reports = await reportScaling(meter, defaultStore(), (line) => console.log(line));
    const rows: Row[] = [...latency, ...cost, ...reports];

    printTable(rows);
    writeReports(rows, PROJECT_ROOT, startedAt, (Date.now() - startedAt.getTime()) / 1000);
    console.log('\nWrote bench/results.json and docs/benchmarks.md');
  } finally {
    await runtime.stop();
  }
}

main().catch((error: unknown) => {
  console.error('bench failed:', error);
  process.exit(1);
});
