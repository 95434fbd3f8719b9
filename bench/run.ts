import '../bin/node-check.cjs';
import { startLocalRuntime } from '../lib/local/runtime';
import { DEMO_SEED_PATH, PROJECT_ROOT } from '../lib/local/paths';
import { readSeed } from '../lib/local/seed-file';
import { functionMeter, instrument, printTable, writeReports, type Row } from './harness';

// The functions log as the stack deploys them (INFO, with EMF metrics): row 8 counts those bytes,
// and the function meter keeps them off the bench's own output.
process.env.POWERTOOLS_LOG_LEVEL = 'INFO';
process.env.POWERTOOLS_METRICS_DISABLED = 'false';

const DEMO_KEY = 'msk_local_demo_0001';
/** Rows 3 and 8's workspace: the demo one with an allowance no benchmark reaches, so no send is a 429. */
const THROUGHPUT_KEY = 'msk_bench_throughput_0001';

/**
 * `npm run bench`: measures the system against its targets and writes bench/results.json and
 * docs/benchmarks.md. Runs on the local runtime (DynamoDB Local + SQS emulator). `--only 1,3`
 * runs some rows and writes nothing, for working on one figure.
 */
async function main(): Promise<void> {
  const only = process.argv.includes('--only') ? new Set(process.argv[process.argv.indexOf('--only') + 1]!.split(',')) : undefined;
  const wanted = (row: string) => !only || only.has(row);
  const log = (line: string) => console.log(line);
  const startedAt = new Date();
  const functions = functionMeter();
  const runtime = await startLocalRuntime({ port: 0, namePrefix: 'bench', invoke: functions.invoke });
  try {
    // Imported after the runtime set the environment: these are the handlers' own clients.
    const { dynamo, sqs } = await import('../lambdas/shared/clients');
    const { defaultStore } = await import('../lambdas/shared/default-store');
    const { applySeed } = await import('../lib/local/seed');
    const meter = instrument({ dynamodb: dynamo, sqs }, functions);
    // Child processes get the runtime's environment, as its own handlers have it, printing nothing.
    const env = { ...process.env, POWERTOOLS_LOG_LEVEL: 'SILENT', POWERTOOLS_METRICS_DISABLED: 'true' };
    const rows: Row[] = [];
    // Rows 3 and 8 send from a workspace with an allowance no benchmark reaches, so no send is a 429.
    const [demo] = readSeed(DEMO_SEED_PATH).workspaces;
    const workspace = { ...demo!, id: 'ws-bench-throughput', settings: { ...demo!.settings, sendsPerMinute: 1_000_000 } };
    const throughputSeed = { workspaces: [{ ...workspace, apiKeys: [{ ...demo!.apiKeys[0]!, key: THROUGHPUT_KEY }] }] };
    await applySeed(throughputSeed, defaultStore());
    // First: row 5 counts the calls of cold caches, and the runtime's handlers share this process.
    if (wanted('5')) {
      const { costPerOperation } = await import('./scenarios/cost-per-operation');
      // Invoked as a function is, so what the handlers log stays off the bench's output.
      rows.push(...(await functions.invoke('row-5', () => costPerOperation(meter, DEMO_KEY))));
    }
    if (wanted('8')) {
      log('Row 8: cost per delivered message…');
      const { costPerMessage } = await import('./scenarios/cost-per-message');
      rows.push(...(await costPerMessage({ runtime, apiKey: THROUGHPUT_KEY, functions, store: defaultStore(), log })));
    }
    // Rows 3, 4 and 6 time the emulators, and DynamoDB Local is a JVM: its first few hundred
    // requests run before its JIT has compiled them, several times slower (row 4a alone read p50
    // 260–384 ms, after row 8 28–32 ms). Row 8 is unaffected (it takes the emulators' waits out of
    // its durations) and its 300 sends warm them for the rest; without it, 300 sends do the same.
    if (!wanted('8') && ['3', '4', '6'].some(wanted)) {
      log('Warming the emulators: 300 sends…');
      const { sendAndSettle } = await import('./scenarios/delivery-latency');
      await sendAndSettle(runtime.url, THROUGHPUT_KEY, 300, 16, 0, 50_000);
    }
    const dispatchId = await sendOne(runtime.url);

    if (wanted('1') || wanted('7')) {
      log('Row 1: bundles and cold starts…');
      await functions.quiet();
      const { coldStart } = await import('./scenarios/cold-start');
      rows.push(...(await coldStart({ env, apiKey: DEMO_KEY, dispatchId, log })));
    }
    if (wanted('2')) {
      log('Row 2: warm CPU per request…');
      await functions.quiet();
      const { warmOverhead } = await import('./scenarios/warm-overhead');
      rows.push(...(await warmOverhead({ env, apiKey: DEMO_KEY, dispatchId })));
    }
    if (wanted('4')) {
      log('Row 4: delivery latency…');
      const { deliveryLatency } = await import('./scenarios/delivery-latency');
      rows.push(...(await deliveryLatency(runtime.url, DEMO_KEY)));
      await functions.quiet();
      const { consumerThroughput } = await import('./scenarios/consumer-throughput');
      rows.push(...(await consumerThroughput({ env: process.env, store: defaultStore(), sqs, workspaceId: workspace.id, log })));
    }
    if (wanted('6')) {
      log('Row 6: seeding report data…');
      const { reportScaling } = await import('./scenarios/report-scaling');
      rows.push(...(await reportScaling(meter, defaultStore(), log)));
    }
    // Last: its sends stay queued on a queue nothing reads, and the runtime's reconciler queues
    // them again after two minutes, keeping the deliver consumer busy for a while after.
    if (wanted('3') || wanted('7')) {
      log('Row 3: send throughput…');
      await functions.quiet();
      const { sendThroughputAlone } = await import('./scenarios/send-throughput');
      const plan = { dynamodbEndpoint: runtime.dynamodbEndpoint, sqsEndpoint: runtime.sqsEndpoint, tableName: runtime.tableName, seed: throughputSeed, apiKey: THROUGHPUT_KEY };
      rows.push(...(await sendThroughputAlone({ env, plan, log })));
    }

    rows.sort((a, b) => a.id.localeCompare(b.id, 'en', { numeric: true }));
    printTable(rows);
    if (only) return;
    writeReports(rows, PROJECT_ROOT, startedAt, (Date.now() - startedAt.getTime()) / 1000);
    console.log('\nWrote bench/results.json and docs/benchmarks.md');
  } finally {
    await runtime.stop();
  }
}

/** One accepted send, so reads have a dispatch to read. */
async function sendOne(baseUrl: string): Promise<string> {
  const response = await fetch(`${baseUrl}/v1/messages`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-api-key': DEMO_KEY },
    body: JSON.stringify({ channel: 'whatsapp', to: '081234567890', content: { type: 'template', templateId: '7b0c5c3e-0000-4000-8000-000000000001', variables: { name: 'Budi', order: 'B-0' } } }),
  });
  if (response.status !== 202) throw new Error(`A send failed with HTTP ${response.status}: ${await response.text()}`);
  return (JSON.parse(await response.text()) as { dispatchId: string }).dispatchId;
}

main().catch((error: unknown) => {
  console.error('bench failed:', error);
  process.exit(1);
});
