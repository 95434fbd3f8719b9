import '../bin/node-check.cjs';
import { startLocalRuntime } from '../lib/local/runtime';
import type { Seed } from '../lib/local/seed-file';
import { childMain } from './child-process';
import type { Row } from './harness';

/**
 * Row 3, in its own process: a local runtime serving the API alone, without the deliver consumer
 * and the table's stream readers (decision 127). Deployed, those are other functions; in the
 * bench's process they share the event loop with the HTTP server and the load generator, and the
 * deliveries one round queues run on into the next round, whichever side it is. Both sides send to
 * this runtime's own queue, which nothing reads, and write the bench runtime's table: a table of
 * its own, new on a DynamoDB Local that earlier rows had loaded, took 4–8 transactions a second.
 * Run by bench/scenarios/send-throughput.ts (`runChild`).
 */
export interface SendThroughputPlan {
  dynamodbEndpoint: string;
  sqsEndpoint: string;
  /** The bench runtime's table: the child's own queue, but the table the bench's stream readers read. */
  tableName: string;
  /** The sending workspace, with an allowance no round reaches, and its key. */
  seed: Seed;
  apiKey: string;
}

export interface SendThroughputResult {
  rows: Row[];
  /** What the row logged, for the bench's own output. */
  lines: string[];
}

childMain(async (plan: SendThroughputPlan): Promise<SendThroughputResult> => {
  const runtime = await startLocalRuntime({
    port: 0,
    namePrefix: `bench-sends-${Date.now()}`,
    tableName: plan.tableName,
    dynamodbEndpoint: plan.dynamodbEndpoint,
    sqsEndpoint: plan.sqsEndpoint,
    consumer: false,
    streamReaders: false,
  });
  try {
    // Imported after the runtime set the environment: these are the handlers' own clients.
    const { dynamo, sqs } = await import('../lambdas/shared/clients');
    const { defaultStore } = await import('../lambdas/shared/default-store');
    const { applySeed } = await import('../lib/local/seed');
    const { sendThroughput } = await import('./scenarios/send-throughput');
    await applySeed(plan.seed, defaultStore());
    const lines: string[] = [];
    const rows = await sendThroughput({ runtime, apiKey: plan.apiKey, clients: { dynamodb: dynamo, sqs }, log: (line) => lines.push(line) });
    return { rows, lines };
  } finally {
    await runtime.stop();
  }
});
