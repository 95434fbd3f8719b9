import type { SQSClient } from '@aws-sdk/client-sqs';

/** Where dispatch messages go: an SQS client and the queue URL it sends to. */
export interface QueueTarget {
  sqs: SQSClient;
  queueUrl: string;
}
