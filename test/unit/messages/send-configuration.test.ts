import { DynamoDBDocumentClient, GetCommand, TransactWriteCommand } from '@aws-sdk/lib-dynamodb';
import { mockClient } from 'aws-sdk-client-mock';
import { handler as sendMessage } from '../../../lambdas/handlers/send-message';
import { apiKeyItem, invokeRoute, itemsByKey, parseResult, templateItem, workspaceItem } from '../../../lib/testing';

const ddb = mockClient(DynamoDBDocumentClient);
const KEY = 'msk_test_key_00000001';

// Read on first use, as a cold start reads it: this file's function has no queue.
delete process.env.QUEUE_URL;

it('answers a send that fails validation without needing QUEUE_URL, and writes nothing', async () => {
  ddb.on(GetCommand).callsFake(itemsByKey([apiKeyItem(KEY), workspaceItem(), templateItem()]));
  const body = { channel: 'whatsapp', to: '081234567890', content: { type: 'template', templateId: templateItem().id, variables: { name: 'Budi' } } };

  const { status, body: answer } = parseResult(await invokeRoute('sendMessage', sendMessage, { apiKey: KEY, body }));

  expect([status, answer.error]).toEqual([422, 'missing_variables']);
  expect(ddb.commandCalls(TransactWriteCommand)).toHaveLength(0);
});
