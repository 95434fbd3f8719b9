import { BatchProcessor, EventType, processPartialResponse } from '@aws-lambda-powertools/batch';
import { injectLambdaContext } from '@aws-lambda-powertools/logger/middleware';
import { ChangeMessageVisibilityCommand } from '@aws-sdk/client-sqs';
import middy from '@middy/core';
import type { Context, SQSBatchResponse, SQSEvent, SQSRecord } from 'aws-lambda';
import * as z from '../shared/zod';
import { deliverQueuedDispatch } from '../domain/delivery/deliver-dispatch';
import { paceDeliveries } from '../domain/delivery/number-pace';
import { requeueDispatches, type DispatchMessage } from '../domain/messages/dispatch-queue';
import { providerFor, settleProviders } from '../domain/providers/provider-for';
import { config } from '../shared/config';
import { defaultQueue } from '../shared/default-store';
import { dispatchQueueSettings } from '../shared/dispatch-queue-settings';
import { logger } from '../shared/logger';
import { flushMetrics, messageMetrics } from '../shared/metrics';
import { readQueueRecord } from '../shared/queue-record';

/** A verdict an earlier receive could not write (decision 161): the moves a provider's answer makes. */
const carriedVerdictSchema = z.object({
  to: z.enum(['sent', 'failed', 'unknown']),
  occurredAt: z.string(),
  providerMessageId: z.optional(z.string()),
  senderPhoneNumberId: z.optional(z.string()),
  failureCode: z.optional(z.string()),
  event: z.optional(z.literal('REJECTED')),
  ofClaim: z.optional(z.int().check(z.gte(1))),
  judgedByReports: z.optional(z.literal(true)),
});
/** A release an earlier receive could not write (decision 161): given back, then the dispatch queued again after its back-off (decision 164). */
const carriedReleaseSchema = z.object({
  attemptStartedAt: z.string(),
  attemptId: z.optional(z.string()),
  providerSaidLater: z.boolean(),
  outage: z.optional(z.literal(true)),
  retryAfterSeconds: z.optional(z.int().check(z.gte(0))),
});
const messageSchema = z.object({
  dispatchId: z.uuid(),
  workspaceId: z.string().check(z.minLength(1)),
  verdict: z.optional(carriedVerdictSchema),
  release: z.optional(carriedReleaseSchema),
});

/** Not a failure: the provider asked us to come back later. */
class RetryLaterError extends Error {
  override name = 'RetryLaterError';
}

/** What the function keeps of its time for answering the batch once the last verdict is written. */
const BATCH_ANSWER_MS = 2_000;

/** One queue record's dispatch to deliver (issue 4). */
async function deliverMessage(record: SQSRecord, message: DispatchMessage, context: Context): Promise<void> {
  const receiveCount = Number(record.attributes.ApproximateReceiveCount);
  // A context without a clock (a developer's test passing `{}`) sets none: the claim is not held to
  // the function's time, and the verdict's write keeps its own.
  const remaining = context.getRemainingTimeInMillis?.();
  const deadline = remaining === undefined ? {} : { deadline: Date.now() + remaining - BATCH_ANSWER_MS };
  const verdict = await deliverQueuedDispatch({ ...message, receiveCount, maxReceives: dispatchQueueSettings.maxReceiveCount, ...deadline }, { providerFor });
  if (verdict.outcome === 'retry' && verdict.cause) {
    // Ours, not the provider's (the table or the queue did not answer, a stored item did not read):
    // the batch processor keeps a record's error to itself, so this line is the operator's one sign.
    logger.error('Delivery attempt failed on our side; the message comes back', { ...message, receiveCount, retryInSeconds: verdict.afterSeconds, error: verdict.cause });
  } else logger.info('Delivery attempt', { ...message, outcome: verdict.outcome, receiveCount });
  if (verdict.outcome !== 'retry') return;
  // Either way the record fails and SQS hands it out again: after the pause, or after the queue's timeout.
  await comeBackIn(record, verdict.afterSeconds).catch((error: unknown) => logger.warn('Could not shorten the retry delay', { error: error as Error }));
  throw verdict.cause ?? new RetryLaterError(`Provider asked to retry dispatch ${message.dispatchId}`);
}

async function comeBackIn(record: SQSRecord, seconds: number): Promise<void> {
  const queue = defaultQueue();
  await queue.sqs.send(new ChangeMessageVisibilityCommand({ QueueUrl: queue.queueUrl, ReceiptHandle: record.receiptHandle, VisibilityTimeout: seconds }));
}

type Delivery = { record: SQSRecord; message: DispatchMessage };

/**
 * Holds back the deliveries their sending numbers' pace has no room for this second (decision
 * 136): each goes on the queue again as a new message, delayed until a second with room, so
 * nothing of its retry budget or its receives is spent. Returns the deliveries to make now, and
 * the records whose new message the queue did not take: they fail, and come back after the
 * queue's timeout.
 */
async function holdBackForPace(deliveries: Delivery[]): Promise<{ now: Delivery[]; notRequeued: SQSRecord[] }> {
  const waits = await paceDeliveries(deliveries.map(({ message }) => message), new Date());
  const held = deliveries.flatMap((delivery, i) => (waits[i]! > 0 ? [{ ...delivery, delaySeconds: waits[i]! }] : []));
  if (!held.length) return { now: deliveries, notRequeued: [] };
  const refused = new Set(await requeueDispatches(held, defaultQueue()));
  if (held.length > refused.size) messageMetrics.deliveriesPaced(held.length - refused.size);
  if (refused.size) logger.warn('Could not queue paced dispatches again; they come back after the queue’s timeout', { count: refused.size });
  return { now: deliveries.filter((_, i) => !(waits[i]! > 0)), notRequeued: held.filter((_, i) => refused.has(i)).map(({ record }) => record) };
}

/**
 * The dispatch queue's consumer: partial batch failures, so one retry never redelivers the batch.
 * A processor per batch: it keeps the batch's failures, and one process may run several batches at
 * once (the local runtime's pollers, Lambda's multi-concurrency instances). A shared one answered a
 * batch with another's failures, and a message whose retry was lost was deleted (issue 15).
 */
export const deliverBatch = async (event: SQSEvent, context: Context): Promise<SQSBatchResponse> => {
  try {
    // Each body read once: one that cannot be read never will be, and is dropped (logged) here.
    const readable = event.Records.flatMap((record) => {
      const message = readQueueRecord(record, messageSchema, 'dispatch');
      return message ? [{ record, message }] : [];
    });
    // A carried verdict or release asks nothing of the provider, so the pace has nothing to hold it
    // for; held, it would not be written while the reconciler waits for it (decision 164).
    const carried = readable.filter(({ message }) => message.verdict ?? message.release);
    const paced = await holdBackForPace(readable.filter(({ message }) => !(message.verdict ?? message.release)));
    const now = [...carried, ...paced.now];
    const messages = new Map(now.map(({ record, message }) => [record, message]));
    const deliver = (record: SQSRecord) => deliverMessage(record, messages.get(record)!, context);
    const answer = now.length ? await processPartialResponse({ Records: [...messages.keys()] }, deliver, new BatchProcessor(EventType.SQS), { context, throwOnFullBatchFailure: false }) : { batchItemFailures: [] };
    return { batchItemFailures: [...answer.batchItemFailures, ...paced.notRequeued.map((record) => ({ itemIdentifier: record.messageId }))] };
  } finally {
    if (config.AWAIT_PROVIDER_REPORTS === 'true') await settleProviders();
  }
};

export const handler = middy(deliverBatch).use(injectLambdaContext(logger, { resetKeys: true })).use(flushMetrics());
