import '../bin/node-check.cjs';
import { DeleteMessageCommand, ReceiveMessageCommand, type SQSClient } from '@aws-sdk/client-sqs';
import type { SQSBatchResponse, SQSEvent } from 'aws-lambda';
import { lambdaContext } from '../lib/local/api-gateway-event';
import { startQueuePoller, toRecord, type SqsHandler } from '../lib/local/queue-poller';
import { childMain } from './child-process';
import { callsOf, sendAnew, type Call, type Command } from './sdk-calls';

/**
 * Row 4d, in its own process: the deliver handler reads its configuration at import, and here the
 * sandbox has no callback URL, so no report competes with the consumer for the CPU (on Lambda the
 * webhook is another function). Run by bench/scenarios/consumer-throughput.ts with the runtime's
 * environment (`runChild`).
 */
export interface ConsumerPlan {
  region: string;
  /** Two dispatches on a queue of the bench's own: the handler's warm-up, and the replay's template. */
  warmUpQueue: PlannedQueue;
  /** Rounds, the sides taking turns to go first: dispatches the deliver handler takes, and the SDK-only replay's, each on a queue of its own. */
  rounds: { handlerQueue: PlannedQueue; directQueue: PlannedQueue }[];
  /** Per dispatch, what differs between one dispatch's calls and another's. */
  dispatches: Record<string, { to: string; conversationId: string }>;
  concurrency: number;
}

export interface PlannedQueue {
  url: string;
  arn: string;
  count: number;
}

export interface ConsumerResult {
  handler: Drained[];
  direct: Drained[];
  directFailures: number;
  firstFailure?: string;
  /** The replay's calls per dispatch, by command name. */
  calls: string[];
}

childMain(async (plan: ConsumerPlan): Promise<ConsumerResult> => {
  const { dynamo, sqs } = await import('../lambdas/shared/clients');
  const { handler } = await import('../lambdas/handlers/deliver');
  const deliver = handler as unknown as SqsHandler;
  const sideOf = (queue: PlannedQueue) => ({ queueUrl: queue.url, queueArn: queue.arn, region: plan.region });

  // Two deliveries one at a time: the first warms the handler's caches (workspace, event gate),
  // the second is recorded, call by call, as the replay's template.
  let template: { dispatchId: string; calls: Call[] } | undefined;
  for (let i = 0; i < 2; i++) {
    const record = await receiveOne(sqs, sideOf(plan.warmUpQueue));
    const calls = (await callsOf([dynamo, sqs], () => deliver({ Records: [record] }, lambdaContext('deliver', 30_000)))).flat();
    await sqs.send(new DeleteMessageCommand({ QueueUrl: plan.warmUpQueue.url, ReceiptHandle: record.receiptHandle }));
    template = { dispatchId: dispatchIdOf(record.body), calls };
  }
  const model = template!;
  const modelValues = plan.dispatches[model.dispatchId]!;

  // The same calls made directly: for each record, the template's commands with its dispatch id,
  // number and conversation put in, one after another, records of a batch at once (as the
  // handler's batch processor runs them).
  let directFailures = 0;
  let current: Command | undefined;
  let firstFailure: string | undefined;
  const direct: SqsHandler = async (event: SQSEvent): Promise<SQSBatchResponse> => {
    await Promise.all(
      event.Records.map(async ({ body }) => {
        const dispatchId = dispatchIdOf(body);
        const values = plan.dispatches[dispatchId]!;
        const swap = (text: string) =>
          text.replaceAll(model.dispatchId, dispatchId).replaceAll(modelValues.conversationId, values.conversationId).replaceAll(modelValues.to.slice(1), values.to.slice(1));
        try {
          for (const call of model.calls) {
            current = call.command;
            await sendAnew(call, JSON.parse(swap(JSON.stringify(call.command.input))) as object);
          }
        } catch (error) {
          firstFailure ??= `${current?.constructor.name ?? 'a call'}: ${(error as Error).message}`;
          directFailures++;
        }
      }),
    );
    return { batchItemFailures: [] };
  };

  // The sides take turns to go first (A B, B A, …), so both see DynamoDB Local as warm as the other.
  const handlerRuns: Drained[] = [];
  const directRuns: Drained[] = [];
  for (const [i, round] of plan.rounds.entries()) {
    const handlerSide = async () => handlerRuns.push(await drain(sqs, sideOf(round.handlerQueue), round.handlerQueue.count, deliver, plan.concurrency));
    const directSide = async () => directRuns.push(await drain(sqs, sideOf(round.directQueue), round.directQueue.count, direct, plan.concurrency));
    for (const side of i % 2 === 0 ? [handlerSide, directSide] : [directSide, handlerSide]) await side();
  }
  return {
    handler: handlerRuns,
    direct: directRuns,
    directFailures,
    ...(firstFailure ? { firstFailure } : {}),
    calls: model.calls.map(({ command }) => command.constructor.name.replace(/Command$/, '')),
  };
});

const dispatchIdOf = (body: string) => (JSON.parse(body) as { dispatchId: string }).dispatchId;

async function receiveOne(sqs: SQSClient, side: { queueUrl: string; queueArn: string; region: string }) {
  for (;;) {
    const { Messages = [] } = await sqs.send(new ReceiveMessageCommand({ QueueUrl: side.queueUrl, MaxNumberOfMessages: 1, WaitTimeSeconds: 1, MessageSystemAttributeNames: ['All'] }));
    if (Messages[0]) return toRecord(Messages[0], side);
  }
}

export type Drained = Awaited<ReturnType<typeof drain>>;

/**
 * Runs `handler` on the queue through the local runtime's own poller (Lambda's event source as
 * the runtime plays it: receive up to 10, invoke, delete) until `count` records were handled,
 * and times it from the first receive to the last record handled.
 */
async function drain(sqs: SQSClient, side: { queueUrl: string; queueArn: string; region: string }, count: number, handler: SqsHandler, concurrency: number) {
  let handled = 0;
  let failed = 0;
  let finished!: () => void;
  const done = new Promise<void>((resolve) => (finished = resolve));
  const started = performance.now();
  let lastAt = started;
  const poller = startQueuePoller({
    sqs,
    ...side,
    concurrency,
    onError: () => failed++,
    handler: async (event, context) => {
      const response = await handler(event, context);
      failed += response.batchItemFailures.length;
      handled += event.Records.length - response.batchItemFailures.length;
      lastAt = performance.now();
      if (handled >= count) finished();
      return response;
    },
  });
  await done;
  await poller.stop();
  return { dispatches: handled, failed, seconds: (lastAt - started) / 1000 };
}
