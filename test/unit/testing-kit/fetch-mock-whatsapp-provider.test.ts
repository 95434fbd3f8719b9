import { DynamoDBDocumentClient, GetCommand, TransactWriteCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { SendMessageCommand, SQSClient } from '@aws-sdk/client-sqs';
import { mockClient } from 'aws-sdk-client-mock';
import type { SQSEvent, Context, SQSBatchResponse } from 'aws-lambda';
import type * as Kit from '../../../lib/testing';
import type { RouteHandler } from '../../../lib/testing';

/**
 * README, "Invoking a handler in a unit test" → Clients: "The `whatsapp` provider (...) use[s]
 * `fetch`: mock it for those." A test mocks `fetch` as jest does, with `jest.spyOn(globalThis,
 * 'fetch')` in the test, after the handlers were imported. The Graph API base URL is a dead local
 * port, so a call that bypasses the mock fails here instead of reaching Meta.
 */
process.env.GRAPH_API_BASE_URL = 'http://127.0.0.1:9/v21.0';

const ddb = mockClient(DynamoDBDocumentClient);
const sqs = mockClient(SQSClient);
const KEY = 'msk_test_key_00000001';
let kit: typeof Kit;
let sendMessage: RouteHandler;
let deliver: (event: SQSEvent, context: Context) => Promise<SQSBatchResponse>;

beforeAll(async () => {
  // Imported once the environment is set, as at a cold start (README: set variables before importing).
  kit = await import('../../../lib/testing');
  sendMessage = (await import('../../../lambdas/handlers/send-message')).handler;
  deliver = (await import('../../../lambdas/handlers/deliver')).handler;
});

beforeEach(() => {
  ddb.reset();
  sqs.reset();
  kit.resetContainerCaches();
});
afterEach(() => jest.restoreAllMocks());

it('delivers a whatsapp workspace’s dispatch through the fetch the test mocked', async () => {
  const workspace = kit.workspaceItem({ settings: { provider: 'whatsapp', whatsappPhoneNumberId: '1234567890' } });
  ddb.on(GetCommand).callsFake(kit.itemsByKey([kit.apiKeyItem(KEY), workspace, kit.templateItem()]));
  ddb.on(TransactWriteCommand).resolves({});
  sqs.on(SendMessageCommand).resolves({ MessageId: 'm-1' });
  const request = { channel: 'whatsapp', to: '081234567890', content: { type: 'template', templateId: kit.templateItem().id, variables: { name: 'Budi', order: 'A-1' } } };
  const sent = kit.parseResult(await kit.invokeRoute('sendMessage', sendMessage, { apiKey: KEY, body: request }));
  expect(sent.status).toBe(202);
  const stored = ddb.commandCalls(TransactWriteCommand)[0]!.args[0].input.TransactItems!.find((write) => write.Put?.Item?.entity === 'dispatch')!.Put!.Item!;
  ddb.on(UpdateCommand).resolves({ Attributes: { ...stored, status: 'processing', attemptStartedAt: new Date().toISOString() } });
  // Meta's answer to a template send (Cloud API, "Send messages").
  const graphAnswer = { messaging_product: 'whatsapp', contacts: [{ input: '6281234567890', wa_id: '6281234567890' }], messages: [{ id: 'wamid.HBgLNjI4MTIzNDU2Nzg5MBUCABEYEjQ', message_status: 'accepted' }] };
  const graph = jest.spyOn(globalThis, 'fetch').mockResolvedValue(new Response(JSON.stringify(graphAnswer), { status: 200, headers: { 'content-type': 'application/json' } }));

  const result = await deliver(kit.sqsEvent([{ body: kit.dispatchMessage(sent.body.dispatchId as string) }]), kit.lambdaContext('deliver'));

  expect(graph).toHaveBeenCalledWith('http://127.0.0.1:9/v21.0/1234567890/messages', expect.objectContaining({ method: 'POST' }));
  expect(result).toEqual({ batchItemFailures: [] });
});
