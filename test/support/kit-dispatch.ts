import { GetCommand, TransactWriteCommand, UpdateCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { SendMessageCommand, type SQSClient } from '@aws-sdk/client-sqs';
import type { AwsClientStub } from 'aws-sdk-client-mock';
import type { SQSEvent } from 'aws-lambda';
import type * as Kit from '../../lib/testing';
import type { RouteHandler } from '../../lib/testing';

const KEY = 'msk_test_key_00000001';

/**
 * A WhatsApp workspace's dispatch as the README's testing kit makes one: sent through the real
 * send handler against mocked clients, then claimed (the consumer's UpdateCommand answers the
 * dispatch `processing`). Answers its queue message as the deliver consumer receives it.
 */
export async function claimedWhatsAppDispatch(
  kit: typeof Kit,
  sendMessage: RouteHandler,
  ddb: AwsClientStub<DynamoDBDocumentClient>,
  sqs: AwsClientStub<SQSClient>,
  record: { receiveCount?: number } = {},
): Promise<{ dispatchId: string; event: SQSEvent }> {
  const workspace = kit.workspaceItem({ settings: { provider: 'whatsapp', whatsappPhoneNumberId: '1234567890' } });
  ddb.on(GetCommand).callsFake(kit.itemsByKey([kit.apiKeyItem(KEY), workspace, kit.templateItem()]));
  ddb.on(TransactWriteCommand).resolves({});
  sqs.on(SendMessageCommand).resolves({ MessageId: 'm-1' });
  const request = { channel: 'whatsapp', to: '081234567890', content: { type: 'template', templateId: kit.templateItem().id, variables: { name: 'Budi', order: 'A-1' } } };
  const sent = kit.parseResult(await kit.invokeRoute('sendMessage', sendMessage, { apiKey: KEY, body: request }));
  expect(sent.status).toBe(202);
  const stored = ddb.commandCalls(TransactWriteCommand)[0]!.args[0].input.TransactItems!.find((write) => write.Put?.Item?.entity === 'dispatch')!.Put!.Item!;
  ddb.on(UpdateCommand).resolves({ Attributes: { ...stored, status: 'processing', attemptStartedAt: new Date().toISOString() } });
  const dispatchId = sent.body.dispatchId as string;
  return { dispatchId, event: kit.sqsEvent([{ body: kit.dispatchMessage(dispatchId), ...record }]) };
}
