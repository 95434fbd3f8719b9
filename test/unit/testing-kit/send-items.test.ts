import { DynamoDBDocumentClient, GetCommand, TransactWriteCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { SendMessageCommand, SQSClient } from '@aws-sdk/client-sqs';
import { mockClient } from 'aws-sdk-client-mock';
import { handler as deliver } from '../../../lambdas/handlers/deliver';
import { handler as sendMessage } from '../../../lambdas/handlers/send-message';
import { handler as whatsappWebhook } from '../../../lambdas/handlers/whatsapp-webhook';
import { workspaceOfItem } from '../../../lambdas/domain/workspaces/workspace-repository';
import { keys } from '../../../lambdas/shared/table';
import {
  apiKeyItem,
  dispatchMessage,
  invokeRoute,
  itemsByKey,
  lambdaContext,
  numberOwnerItem,
  parseResult,
  resetContainerCaches,
  routeEvent,
  signWhatsAppBody,
  sqsEvent,
  templateItem,
  whatsAppStatusBody,
  workspaceItem,
  type SendMessageRequest,
} from '../../../lib/testing';

const ddb = mockClient(DynamoDBDocumentClient);
const sqs = mockClient(SQSClient);
const KEY = 'msk_test_key_00000001';
const template = templateItem();
const workspace = workspaceItem();
const request: SendMessageRequest = { channel: 'whatsapp', to: '081234567890', content: { type: 'template', templateId: template.id, variables: { name: 'Budi', order: 'A-1042' } } };

beforeEach(() => {
  ddb.reset();
  sqs.reset();
  resetContainerCaches();
});

/** The table a send reads, from the kit's items alone; its writes and the queue accepted. */
function givenTable(...more: { pk: string; sk: string }[]) {
  ddb.on(GetCommand).callsFake(itemsByKey([apiKeyItem(KEY), workspace, template, ...more]));
  ddb.on(TransactWriteCommand).resolves({});
  sqs.on(SendMessageCommand).resolves({ MessageId: 'm-1' });
}

/** A send through the handler; the dispatch item it wrote and its 202 body. */
async function send() {
  const { status, body } = parseResult(await invokeRoute('sendMessage', sendMessage, { apiKey: KEY, body: request }));
  expect(status).toBe(202);
  const stored = ddb.commandCalls(TransactWriteCommand)[0]!.args[0].input.TransactItems!.find((write) => write.Put?.Item?.entity === 'dispatch')!.Put!.Item!;
  return { dispatchId: body.dispatchId as string, stored };
}

it('builds items the domain reads back', () => {
  expect(workspaceOfItem(workspace)).toMatchObject({ id: 'ws-test', rupiahPerCredit: 150, settings: { provider: 'sandbox', sendsPerMinute: 600 } });
  expect(numberOwnerItem(workspace)).toEqual({ ...keys.whatsappNumber('sandbox:ws-test'), entity: 'whatsappNumber', workspaceId: 'ws-test' });
  expect(numberOwnerItem(workspaceItem({ settings: { provider: 'whatsapp', whatsappPhoneNumberId: '1234567890' } })).pk).toBe('WANUM#1234567890');
  expect(() => numberOwnerItem(workspaceItem({ settings: { provider: 'whatsapp' } }))).toThrow(/default number/);
});

it('accepts a send with only the kit’s items and queues the message the deliver consumer reads', async () => {
  givenTable();

  const { dispatchId } = await send();

  const queued = JSON.parse(sqs.commandCalls(SendMessageCommand)[0]!.args[0].input.MessageBody!) as unknown;
  expect(queued).toEqual(dispatchMessage(dispatchId));
});

it('invokes a copy of the event it is given: one event invoked twice is two sends', async () => {
  givenTable();
  const event = routeEvent('sendMessage', { apiKey: KEY, body: request });

  const answers = [await invokeRoute('sendMessage', sendMessage, event), await invokeRoute('sendMessage', sendMessage, event)];

  expect(answers.map((answer) => answer.statusCode)).toEqual([202, 202]);
  expect(typeof event.body).toBe('string');
});

it('delivers through the sandbox under fake timers: with no callback URL there are no reports to wait for', async () => {
  givenTable();
  const { dispatchId, stored } = await send();
  ddb.on(UpdateCommand).resolves({ Attributes: { ...stored, status: 'processing', attemptStartedAt: new Date().toISOString() } });
  jest.useFakeTimers();
  try {
    expect(await deliver(sqsEvent([{ body: dispatchMessage(dispatchId) }]), lambdaContext('deliver'))).toEqual({ batchItemFailures: [] });
  } finally {
    jest.useRealTimers();
  }
  expect(jest.getTimerCount()).toBe(0);
});

it.each([
  ['applies a signed status to the dispatch when the number’s owner is stored', true],
  ['skips it (200 all the same) when no item says who owns the number', false],
])('%s', async (_, owned) => {
  givenTable(...(owned ? [numberOwnerItem(workspace)] : []));
  const { dispatchId, stored } = await send();
  ddb.on(GetCommand, { Key: keys.dispatch(dispatchId) }).resolves({ Item: { ...stored, status: 'sent' } });
  ddb.on(UpdateCommand).resolves({});
  ddb.on(TransactWriteCommand).resolves({});
  ddb.resetHistory();

  const body = whatsAppStatusBody(workspace, [{ id: `wamid.sandbox.${dispatchId}`, status: 'delivered', timestamp: String(Math.floor(Date.now() / 1000)), biz_opaque_callback_data: dispatchId }]);
  const answer = parseResult(await invokeRoute('whatsappWebhook', whatsappWebhook, { body, headers: { 'Content-Type': 'application/json', 'X-Hub-Signature-256': signWhatsAppBody(body) } }));

  expect(answer).toMatchObject({ status: 200, body: { success: true } });
  const writes = [...ddb.commandCalls(UpdateCommand), ...ddb.commandCalls(TransactWriteCommand)].map((call) => JSON.stringify(call.args[0].input));
  expect(writes.some((write) => write.includes(`DSP#${dispatchId}`) && write.includes('delivered'))).toBe(owned);
});
