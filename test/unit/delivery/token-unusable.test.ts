import { DynamoDBDocumentClient, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { SQSClient } from '@aws-sdk/client-sqs';
import { mockClient } from 'aws-sdk-client-mock';
import type { SQSEvent, Context, SQSBatchResponse } from 'aws-lambda';
import type * as Kit from '../../../lib/testing';
import type { RouteHandler } from '../../../lib/testing';
import { claimedWhatsAppDispatch } from '../../support/kit-dispatch';
import { captureLogLines } from '../../support/log-lines';

/**
 * A token pasted with a character no HTTP header may carry: a zero-width space (U+200B, as chat
 * tools add to copied text), the runbook's own `EAAG…` example with its U+2026, or a line break (a
 * wrapped token file read into the secret's JSON). `fetch` refuses to build the Authorization
 * header before any connection, quoting the whole token in its message. Nothing reached WhatsApp,
 * and every send fails alike until the secret is fixed: such deliveries are held, as for a token
 * WhatsApp refuses (docs/operations.md#whatsapp-token-refused), never settled `unknown` ("never
 * sent again"), and the token is in no log line.
 */
const TOKEN_START = 'EAAGm0PX4ZCpsBAKiZB7SecretAccessToken';
const TOKEN_END = 'Value0123456789ZDZD';

const ddb = mockClient(DynamoDBDocumentClient);
const sqs = mockClient(SQSClient);
let kit: typeof Kit;
let sendMessage: RouteHandler;
let deliver: (event: SQSEvent, context: Context) => Promise<SQSBatchResponse>;

beforeAll(async () => {
  process.env.GRAPH_API_BASE_URL = 'http://127.0.0.1:9/v26.0';
  kit = await import('../../../lib/testing');
  sendMessage = (await import('../../../lambdas/handlers/send-message')).handler;
  deliver = (await import('../../../lambdas/handlers/deliver')).handler;
});
beforeEach(() => {
  ddb.reset();
  sqs.reset();
  kit.resetContainerCaches();
});
afterAll(() => delete process.env.WHATSAPP_ACCESS_TOKEN);

it.each([
  ['a zero-width space', '\u200B'],
  ['an ellipsis', '\u2026'],
  ['a line break', '\n'],
])('a token with %s is held on its last receive, never settled unknown, and never logged', async (_, character) => {
  process.env.WHATSAPP_ACCESS_TOKEN = `${TOKEN_START}${character}${TOKEN_END}`;
  // The message's last receive: what is not settled now would go to the DLQ.
  const { event } = await claimedWhatsAppDispatch(kit, sendMessage, ddb, sqs, { receiveCount: 5 });

  const logs = captureLogLines();
  await deliver(event, kit.lambdaContext('deliver')).finally(logs.restore);

  const moves = ddb.commandCalls(UpdateCommand).map((call) => call.args[0].input.ExpressionAttributeValues ?? {});
  expect(moves.filter((values) => values[':to'] === 'unknown' || values[':to'] === 'failed')).toEqual([]);
  expect(logs.lines.map((line) => line.message)).toContain('WhatsApp refused the access token; delivery held');
  const leaking = logs.lines.filter((line) => JSON.stringify(line).includes(TOKEN_START) || JSON.stringify(line).includes(TOKEN_END));
  expect(leaking.map((line) => `${String(line.level)} ${String(line.message)}`)).toEqual([]);
});
