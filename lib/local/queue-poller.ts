import { DeleteMessageBatchCommand, ReceiveMessageCommand, type Message, type SQSClient } from '@aws-sdk/client-sqs';
import type { Context, SQSBatchResponse, SQSEvent, SQSRecord } from 'aws-lambda';
import { dispatchQueueSettings } from '../../lambdas/shared/dispatch-queue-settings';
import { lambdaContext } from './api-gateway-event';

export type SqsHandler = (event: SQSEvent, context: Context) => Promise<SQSBatchResponse>;

export interface QueuePoller {
  stop(): Promise<void>;
}

/**
 * Plays Lambda's SQS event source mapping: receives batches, invokes the handler with the same
 * event shape, deletes the records it did not report as failed, and leaves failed ones to
 * reappear after their visibility timeout (and reach the DLQ after maxReceiveCount), as AWS does.
 * Several pollers run at once, like concurrent consumer invocations.
 */
export function startQueuePoller(options: {
  sqs: SQSClient;
  queueUrl: string;
  queueArn: string;
  region: string;
  handler: SqsHandler;
  concurrency?: number;
  /** The consumer's batch size and timeout: the dispatch consumer's unless given. */
  settings?: { batchSize: number; consumerTimeoutSeconds: number };
  /** The function name its context carries. */
  functionName?: string;
  onError: (error: unknown) => void;
}): QueuePoller {
  const settings = options.settings ?? dispatchQueueSettings;
  let stopped = false;
  const poll = async () => {
    while (!stopped) {
      try {
        const { Messages = [] } = await options.sqs.send(
          new ReceiveMessageCommand({
            QueueUrl: options.queueUrl,
            MaxNumberOfMessages: settings.batchSize,
            WaitTimeSeconds: 1,
            MessageSystemAttributeNames: ['All'],
          }),
        );
        if (!Messages.length || stopped) continue;
        let failed: Set<string>;
        try {
          const response = await options.handler({ Records: Messages.map((message) => toRecord(message, options)) }, lambdaContext(options.functionName ?? 'deliver', settings.consumerTimeoutSeconds * 1000));
          failed = new Set(response.batchItemFailures.map((failure) => failure.itemIdentifier));
        } catch (error) {
          // An invocation that throws fails the whole batch, as on AWS.
          options.onError(error);
          failed = new Set(Messages.map((message) => message.MessageId!));
        }
        const done = Messages.filter((message) => !failed.has(message.MessageId!));
        if (done.length) {
          await options.sqs.send(
            new DeleteMessageBatchCommand({ QueueUrl: options.queueUrl, Entries: done.map((message, i) => ({ Id: String(i), ReceiptHandle: message.ReceiptHandle! })) }),
          );
        }
      } catch (error) {
        if (!stopped) options.onError(error);
        await new Promise((resolve) => setTimeout(resolve, 500));
      }
    }
  };
  const workers = Array.from({ length: options.concurrency ?? 4 }, poll);
  return {
    async stop() {
      stopped = true;
      await Promise.all(workers);
    },
  };
}

export function toRecord(message: Message, options: { queueArn: string; region: string }): SQSRecord {
  const attributes = message.Attributes ?? {};
  return {
    messageId: message.MessageId!,
    receiptHandle: message.ReceiptHandle!,
    body: message.Body ?? '',
    attributes: {
      ApproximateReceiveCount: attributes.ApproximateReceiveCount ?? '1',
      SentTimestamp: attributes.SentTimestamp ?? String(Date.now()),
      SenderId: attributes.SenderId ?? 'local',
      ApproximateFirstReceiveTimestamp: attributes.ApproximateFirstReceiveTimestamp ?? String(Date.now()),
    },
    messageAttributes: {},
    md5OfBody: message.MD5OfBody ?? '',
    eventSource: 'aws:sqs',
    eventSourceARN: options.queueArn,
    awsRegion: options.region,
  };
}
