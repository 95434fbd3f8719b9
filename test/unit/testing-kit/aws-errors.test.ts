import { ProvisionedThroughputExceededException, ResourceNotFoundException } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient, GetCommand, TransactWriteCommand } from '@aws-sdk/lib-dynamodb';
import { SendMessageCommand, SQSClient } from '@aws-sdk/client-sqs';
import { mockClient } from 'aws-sdk-client-mock';
import { handler as listTemplates } from '../../../lambdas/handlers/list-templates';
import { handler as sendMessage } from '../../../lambdas/handlers/send-message';
import { apiKeyItem, invokeRoute, itemsByKey, parseResult, resetContainerCaches, templateItem, workspaceItem } from '../../../lib/testing';

const ddb = mockClient(DynamoDBDocumentClient);
const sqs = mockClient(SQSClient);
const KEY = 'msk_test_key_00000001';

beforeEach(() => {
  ddb.reset();
  sqs.reset();
  resetContainerCaches();
});

/** The README's "AWS errors": how the way a test builds a rejection decides what the handler answers. */
it.each([
  ['an Error named "Error" (.rejects with a string): a fault of ours', 'ProvisionedThroughputExceededException', 500],
  ['{ name, message }: the throttle it names', { name: 'ProvisionedThroughputExceededException', message: 'slow' }, 503],
  ['the SDK’s class, answered with a 400: the throttle it is', new ProvisionedThroughputExceededException({ message: 'slow', $metadata: { httpStatusCode: 400 } }), 503],
  ['the SDK’s class for a missing table, answered with a 400: a fault of ours', new ResourceNotFoundException({ message: 'Requested resource not found', $metadata: { httpStatusCode: 400 } }), 500],
  ['any error whose $metadata has no status code: no answer came', new ResourceNotFoundException({ message: 'Requested resource not found', $metadata: {} }), 503],
])('%s', async (_, error, status) => {
  ddb.on(GetCommand).rejects(error);

  expect(parseResult(await invokeRoute('listTemplates', listTemplates, { apiKey: KEY })).status).toBe(status);
});

it('answers a send whose transaction stays throttled with 503 once its retries are spent, under fake timers', async () => {
  ddb.on(GetCommand).callsFake(itemsByKey([apiKeyItem(KEY), workspaceItem(), templateItem()]));
  ddb.on(TransactWriteCommand).rejects(new ProvisionedThroughputExceededException({ message: 'slow', $metadata: { httpStatusCode: 400 } }));
  sqs.on(SendMessageCommand).resolves({});
  const body = { channel: 'whatsapp', to: '081234567890', content: { type: 'template', templateId: templateItem().id, variables: { name: 'Budi', order: 'A-1' } } };
  jest.useFakeTimers();
  try {
    const answer = invokeRoute('sendMessage', sendMessage, { apiKey: KEY, body });
    await jest.advanceTimersByTimeAsync(10_000);
    const { status, headers } = parseResult(await answer);
    expect([status, headers['retry-after']]).toEqual([503, '1']);
  } finally {
    jest.useRealTimers();
  }
  expect(ddb.commandCalls(TransactWriteCommand).length).toBeGreaterThan(1);
});
