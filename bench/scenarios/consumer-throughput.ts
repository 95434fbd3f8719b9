import { join } from 'node:path';
import type { SQSClient } from '@aws-sdk/client-sqs';
import { getDispatch } from '../../lambdas/domain/messages/dispatch-repository';
import { conversationOfDispatch } from '../../lambdas/domain/messages/dispatch';
import { sendTemplateMessage } from '../../lambdas/domain/messages/send-message';
import { mapWithConcurrency } from '../../lambdas/shared/concurrency';
import type { Store } from '../../lambdas/shared/store';
import { createDispatchQueues } from '../../lib/local/sqs-emulator';
import { runChild } from '../child-process';
import type { ConsumerPlan, ConsumerResult, Drained, PlannedQueue } from '../consumer-throughput-child';
import { ratioNumbers, verdictOf, type Row } from '../harness';

/** The consumer may deliver no fewer than this share of the dispatches a second that its calls alone allow. */
const TARGET_RATIO = 0.8;
// Rounds of a few seconds each and an even number of them, the sides taking turns to go first:
// at 100 a side, a round lasted under a second and the ratio swung ×0.71–×0.92 between runs.
const ROUNDS = 4;
const PER_SIDE_PER_ROUND = 250;
/** Sends writing the rounds' dispatches at once. */
const WRITERS = 8;
/** The local runtime's pollers (lib/local/queue-poller.ts): four batches in flight, as four consumer instances. */
const CONCURRENCY = 4;
const TEMPLATE_ID = '7b0c5c3e-0000-4000-8000-000000000001';

/**
 * Row 4d: the deliver consumer's dispatches per second against the same DynamoDB calls made
 * directly. Both sides take dispatches the real send path wrote, from queues of the bench's own
 * (the runtime's consumer never sees them), through the runtime's poller at its concurrency, on
 * DynamoDB Local. The handler side is the deployed handler (batch processor, claim, provider,
 * status transaction, logs and metrics); the direct side replays, per record, the calls one warm
 * delivery made, with the record's dispatch id, number and conversation put in.
 */
export async function consumerThroughput(options: { env: NodeJS.ProcessEnv; store: Store; sqs: SQSClient; workspaceId: string; log: (line: string) => void }): Promise<Row[]> {
  const { store, sqs, workspaceId } = options;
  const dispatches: ConsumerPlan['dispatches'] = {};
  let sent = 0;
  const queueOf = async (name: string, count: number): Promise<PlannedQueue> => {
    const { queueUrl, queueArn } = await createDispatchQueues(sqs, `bench-consumer-${name}-${Date.now()}`);
    const numbers = Array.from({ length: count }, () => sent++);
    await mapWithConcurrency(numbers, WRITERS, async (number) => {
      // Ends in 1: never one of the sandbox's special endings (0000, 0429, 0504, 0200).
      const to = `08129${String(400_000 + number)}1`;
      const { dispatchId } = await sendTemplateMessage(
        { workspaceId, apiClient: { id: 'bench', name: 'bench' }, to, templateId: TEMPLATE_ID, variables: { name: 'Bench', order: String(number) }, tagIds: [], trackingTags: ['bench-consumer'], now: new Date() },
        { store, queue: { sqs, queueUrl } },
      );
      const dispatch = (await getDispatch(workspaceId, dispatchId, store))!;
      dispatches[dispatchId] = { to: dispatch.to, conversationId: conversationOfDispatch(dispatch) };
    });
    return { url: queueUrl, arn: queueArn, count };
  };
  options.log(`  writing ${2 + ROUNDS * PER_SIDE_PER_ROUND * 2} dispatches through the send path…`);
  const warmUpQueue = await queueOf('warm-up', 2);
  const rounds = [];
  for (let round = 0; round < ROUNDS; round++) rounds.push({ handlerQueue: await queueOf(`handler-${round}`, PER_SIDE_PER_ROUND), directQueue: await queueOf(`direct-${round}`, PER_SIDE_PER_ROUND) });
  const plan: ConsumerPlan = { region: options.env.AWS_REGION!, warmUpQueue, rounds, dispatches, concurrency: CONCURRENCY };
  // No callback URL: the sandbox reports nothing, so no webhook work competes for the CPU.
  // Logs and metrics on, as deployed: writing them is part of the handler's work.
  const env: NodeJS.ProcessEnv = { ...options.env, POWERTOOLS_LOG_LEVEL: 'INFO', POWERTOOLS_METRICS_DISABLED: 'false' };
  delete env.SANDBOX_CALLBACK_URL;
  const result = await runChild<ConsumerResult>(join(import.meta.dirname, '..', 'consumer-throughput-child.ts'), plan, env);
  const rate = (runs: Drained[]) => runs.reduce((sum, r) => sum + r.dispatches, 0) / runs.reduce((sum, r) => sum + r.seconds, 0);
  const perRound = (runs: Drained[]) => runs.map((r) => (r.dispatches / r.seconds).toFixed(0)).join('/');
  options.log(`  rounds: handler ${perRound(result.handler)}/s, direct ${perRound(result.direct)}/s`);
  const handlerRate = rate(result.handler);
  const directRate = rate(result.direct);
  const numbers = ratioNumbers('dispatches/s', handlerRate, directRate, TARGET_RATIO, 'at least');
  const ratio = numbers.ratio!;
  const failed = result.handler.reduce((sum, r) => sum + r.failed, 0);
  return [
    {
      id: '4d',
      what: `deliver consumer: dispatches/s through the deployed handler vs the same calls made directly (${result.calls.join(' + ')} per dispatch), ${ROUNDS} × ${PER_SIDE_PER_ROUND} each, ${CONCURRENCY} batches of 10 in flight, rounds alternating`,
      figure: `${handlerRate.toFixed(0)}/s vs ${directRate.toFixed(0)}/s (×${ratio.toFixed(2)}); records failed: ${failed}, direct failures: ${result.directFailures}`,
      target: `≥ ×${TARGET_RATIO}`,
      // A failed record on either side voids the comparison, as in row 3.
      verdict: verdictOf(numbers) === 'met' && failed === 0 && result.directFailures === 0 ? 'met' : 'missed',
      ...(result.firstFailure ? { note: `first direct failure: ${result.firstFailure}` } : {}),
      numbers,
    },
  ];
}
