import { GetMetricStatisticsCommand, type CloudWatchClient } from '@aws-sdk/client-cloudwatch';
import { cloudwatch as defaultCloudwatch } from '../../shared/cloudwatch-client';
import { logger } from '../../shared/logger';
import type { QueueTarget } from '../../shared/queue';

/** How far back the queue's metric is read: SQS publishes it every minute, a minute or two late. */
const LOOKBACK_MS = 6 * 60_000;

/**
 * How long the queue's oldest message has waited now (ms), from SQS's own
 * `ApproximateAgeOfOldestMessage` in CloudWatch: the latest minute's maximum, aged by the time
 * since that minute began (so never less than the true age, if the message is still there).
 * Undefined when CloudWatch has no recent figure (an idle queue publishes none).
 */
export async function oldestMessageAge(queueName: string, now: Date, cloudwatch: CloudWatchClient): Promise<number | undefined> {
  const { Datapoints = [] } = await cloudwatch.send(
    new GetMetricStatisticsCommand({
      Namespace: 'AWS/SQS',
      MetricName: 'ApproximateAgeOfOldestMessage',
      Dimensions: [{ Name: 'QueueName', Value: queueName }],
      StartTime: new Date(now.getTime() - LOOKBACK_MS),
      EndTime: now,
      Period: 60,
      Statistics: ['Maximum'],
    }),
  );
  const latest = Datapoints.filter((point) => point.Timestamp && point.Maximum !== undefined).sort((a, b) => b.Timestamp!.getTime() - a.Timestamp!.getTime())[0];
  if (!latest) return undefined;
  return latest.Maximum! * 1000 + Math.max(0, now.getTime() - latest.Timestamp!.getTime());
}

/** A queue's name, the last part of its URL (`https://sqs.<region>.amazonaws.com/<account>/<name>`). */
const queueNameOf = (queueUrl: string): string => queueUrl.slice(queueUrl.lastIndexOf('/') + 1);

/**
 * Whether a queue is SQS's own, of which CloudWatch has metrics, and not an emulator's: its URL on
 * an `amazonaws.com` host, reached at SQS's own endpoint. A client pointed elsewhere (SQS_ENDPOINT:
 * the local runtime, or a developer's unit test aiming it at a dead port) sends to no SQS queue,
 * whatever the URL names, and CloudWatch is not asked; a test of the reconciler never reaches AWS.
 */
const isSqsQueue = (queue: QueueTarget): boolean => !queue.sqs.config.isCustomEndpoint && /\.amazonaws\.com(\.cn)?$/.test(URL.parse(queue.queueUrl)?.hostname ?? '');

/**
 * How long the function's dispatch queue has held its oldest message (ms), for the reconciler
 * (decision 137). Undefined when that cannot be known: an emulated queue (the local runtime,
 * whose queues CloudWatch knows nothing of), or CloudWatch not answering; the reconciler then acts
 * as it did before it asked.
 */
export async function dispatchQueueAge(queue: QueueTarget, now: Date, cloudwatch: CloudWatchClient = defaultCloudwatch): Promise<number | undefined> {
  if (!isSqsQueue(queue)) return undefined;
  try {
    return await oldestMessageAge(queueNameOf(queue.queueUrl), now, cloudwatch);
  } catch (error) {
    logger.warn('Could not read the dispatch queue’s age; queued dispatches are judged without it', { error: error as Error });
    return undefined;
  }
}
