import { DynamoDBDocumentClient, GetCommand, TransactWriteCommand } from '@aws-sdk/lib-dynamodb';
import { SendMessageCommand, SQSClient } from '@aws-sdk/client-sqs';
import { mockClient } from 'aws-sdk-client-mock';
import { handler as sendMessage } from '../../../lambdas/handlers/send-message';
import { apiKeyItem, invokeRoute, itemsByKey, parseResult, resetContainerCaches, templateItem, workspaceItem, type SendMessageRequest } from '../../../lib/testing';

/**
 * The kit's EventInput.body: an object goes in the encoding the Content-Type header names, as a
 * client sends it (docs/api.md#form-encodings), so a form or multipart send is tested as one.
 */
const ddb = mockClient(DynamoDBDocumentClient);
const sqs = mockClient(SQSClient);
const KEY = 'msk_test_key_00000001';

beforeEach(() => {
  ddb.reset();
  sqs.reset();
  resetContainerCaches();
  ddb.on(GetCommand).callsFake(itemsByKey([apiKeyItem(KEY), workspaceItem(), templateItem()]));
  ddb.on(TransactWriteCommand).resolves({});
  sqs.on(SendMessageCommand).resolves({ MessageId: 'm-1' });
});

const body: SendMessageRequest = { channel: 'whatsapp', to: '081234567890', content: { type: 'template', templateId: templateItem().id, variables: { name: 'Budi', order: 'A-1042' } }, trackingTags: ['promo'] };

it.each(['application/x-www-form-urlencoded', 'multipart/form-data', 'multipart/form-data; boundary=OwnBoundary42'])('sends an object body as the Content-Type %s says, and the send takes it', async (contentType) => {
  const answer = parseResult(await invokeRoute('sendMessage', sendMessage, { apiKey: KEY, headers: { 'Content-Type': contentType }, body }));
  expect([answer.status, answer.body.error]).toEqual([202, undefined]);
  const dispatch = ddb
    .commandCalls(TransactWriteCommand)
    .flatMap((call) => call.args[0].input.TransactItems ?? [])
    .map((write) => write.Put?.Item)
    .find((item) => item?.entity === 'dispatch');
  expect(dispatch).toMatchObject({ to: '+6281234567890', trackingTags: ['promo'] });
});
