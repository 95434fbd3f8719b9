import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { SQSClient } from '@aws-sdk/client-sqs';
import { mockClient } from 'aws-sdk-client-mock';
import { deliverBatch } from '../../../lambdas/handlers/deliver';
import { sqsEvent } from '../../../lib/testing/sqs-events';
import { lambdaContext } from '../../support/events';

const ddb = mockClient(DynamoDBDocumentClient);
const sqs = mockClient(SQSClient);
beforeEach(() => {
  ddb.reset();
  sqs.reset();
});


describe('deliver consumer, unreadable messages', () => {
  it.each([['not json at all'], ['{"dispatchId":"not-a-uuid","workspaceId":"ws"}'], ['[]']])(
    'drops %s instead of retrying it into the DLQ, touching nothing',
    async (body) => {
      const event = sqsEvent([{ body }]);
      expect(await deliverBatch(event, lambdaContext('deliver'))).toEqual({ batchItemFailures: [] });
      expect(ddb.calls()).toHaveLength(0);
      expect(sqs.calls()).toHaveLength(0);
    },
  );
});
