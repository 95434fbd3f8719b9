import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { SQSClient } from '@aws-sdk/client-sqs';
import { mockClient } from 'aws-sdk-client-mock';
import type { SQSEvent } from 'aws-lambda';
import { deliverBatch } from '../../../lambdas/handlers/deliver';
import { lambdaContext } from '../../support/events';

const ddb = mockClient(DynamoDBDocumentClient);
const sqs = mockClient(SQSClient);
beforeEach(() => {
  ddb.reset();
  sqs.reset();
});

const record = (body: string) => ({
  messageId: 'm-1',
  receiptHandle: 'r-1',
  body,
  attributes: { ApproximateReceiveCount: '1', SentTimestamp: '0', SenderId: 's', ApproximateFirstReceiveTimestamp: '0' },
  messageAttributes: {},
  md5OfBody: '',
  eventSource: 'aws:sqs',
  eventSourceARN: 'arn:aws:sqs:ap-southeast-3:000000000000:dispatch',
  awsRegion: 'ap-southeast-3',
});

describe('deliver consumer, unreadable messages', () => {
  it.each([['not json at all'], ['{"dispatchId":"not-a-uuid","workspaceId":"ws"}'], ['[]']])(
    'drops %s instead of retrying it into the DLQ, touching nothing',
    async (body) => {
      const event: SQSEvent = { Records: [record(body)] };
      expect(await deliverBatch(event, lambdaContext('deliver'))).toEqual({ batchItemFailures: [] });
      expect(ddb.calls()).toHaveLength(0);
      expect(sqs.calls()).toHaveLength(0);
    },
  );
});
