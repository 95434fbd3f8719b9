import { createHash, randomUUID } from 'node:crypto';
import type { SQSEvent, SQSRecord } from 'aws-lambda';

export interface SqsRecordInput {
  /** The message body; an object is sent as JSON (the dispatch queue's `{ dispatchId, workspaceId }`). */
  body: unknown;
  /** How many times SQS has handed the message out, this time included (default 1). */
  receiveCount?: number;
  messageId?: string;
}

const QUEUE_ARN = 'arn:aws:sqs:ap-southeast-3:000000000000:messaging-dispatch';

/**
 * The event Lambda's SQS event source mapping sends the deliver consumer: one record per message,
 * with the attributes the consumer reads (`ApproximateReceiveCount`).
 */
export function sqsEvent(messages: (SqsRecordInput | Record<string, unknown>)[]): SQSEvent {
  return { Records: messages.map((message) => sqsRecord(isRecordInput(message) ? message : { body: message })) };
}

function isRecordInput(message: SqsRecordInput | Record<string, unknown>): message is SqsRecordInput {
  return 'body' in message;
}

function sqsRecord(input: SqsRecordInput): SQSRecord {
  const body = typeof input.body === 'string' ? input.body : JSON.stringify(input.body);
  const now = String(Date.now());
  return {
    messageId: input.messageId ?? randomUUID(),
    receiptHandle: `receipt-${randomUUID()}`,
    body,
    attributes: { ApproximateReceiveCount: String(input.receiveCount ?? 1), SentTimestamp: now, SenderId: 'AIDAEXAMPLE', ApproximateFirstReceiveTimestamp: now },
    messageAttributes: {},
    md5OfBody: createHash('md5').update(body).digest('hex'),
    eventSource: 'aws:sqs',
    eventSourceARN: QUEUE_ARN,
    awsRegion: 'ap-southeast-3',
  };
}
