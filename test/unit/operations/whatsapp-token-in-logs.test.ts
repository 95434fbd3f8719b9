import { DynamoDBDocumentClient, GetCommand, QueryCommand } from '@aws-sdk/lib-dynamodb';
import { SQSClient } from '@aws-sdk/client-sqs';
import { mockClient } from 'aws-sdk-client-mock';
import type { SQSEvent, Context, SQSBatchResponse } from 'aws-lambda';
import type * as Kit from '../../../lib/testing';
import type { RouteHandler } from '../../../lib/testing';
import { claimedWhatsAppDispatch } from '../../support/kit-dispatch';
import { captureLogLines } from '../../support/log-lines';

/**
 * The WhatsApp access token never reaches a log line (whatsapp-credentials.ts refuses to quote an
 * unreadable secret for that reason). The Graph API, given a token it cannot parse (a stray
 * character pasted with it into the secret), answers code 190 with the token echoed back:
 * `"message": "Malformed access token EAAG…"`. That message is Meta's, not ours to log whole.
 */
const TOKEN = 'EAAGm0PX4ZCpsBAKiZB7SecretAccessTokenValue0123456789ZDZD';
// The token as the operator pasted it, with a stray quote the Graph API cannot parse.
process.env.WHATSAPP_ACCESS_TOKEN = `${TOKEN}"`;
process.env.GRAPH_API_BASE_URL = 'http://127.0.0.1:9/v26.0';

const ddb = mockClient(DynamoDBDocumentClient);
const sqs = mockClient(SQSClient);
let kit: typeof Kit;
let sendMessage: RouteHandler;
let deliver: (event: SQSEvent, context: Context) => Promise<SQSBatchResponse>;

/** Meta's answer to a token it cannot parse: HTTP 400, OAuthException 190, the token in the message. */
const malformedTokenAnswer = () =>
  new Response(JSON.stringify({ error: { message: `Malformed access token ${TOKEN}"`, type: 'OAuthException', code: 190, fbtrace_id: 'AbCdEfGhIjK' } }), {
    status: 400,
    headers: { 'content-type': 'application/json' },
  });

beforeAll(async () => {
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

it('deliver: a token the Graph API echoes in its 190 answer is in no log line', async () => {
  const { event } = await claimedWhatsAppDispatch(kit, sendMessage, ddb, sqs);
  const graph = jest.spyOn(globalThis, 'fetch').mockImplementation(() => Promise.resolve(malformedTokenAnswer()));

  const logs = captureLogLines();
  await deliver(event, kit.lambdaContext('deliver')).finally(logs.restore);

  expect(graph).toHaveBeenCalled();
  // The operator's line is there (docs/operations.md#whatsapp-token-refused), with Meta's words but not the token.
  expect(logs.lines.map((line) => line.message)).toContain('WhatsApp refused the access token; delivery held');
  expect(logs.lines.find((line) => line.message === 'Provider did not accept')).toMatchObject({ providerMessage: 'Malformed access token [access token]' });
  const leaking = logs.lines.filter((line) => JSON.stringify(line).includes(TOKEN.slice(0, 20)));
  expect(leaking.map((line) => `${String(line.level)} ${String(line.message)}`)).toEqual([]);
});

it('template sync: a token the Graph API echoes in its 190 answer is in no log line', async () => {
  const { syncAllTemplates } = await import('../../../lambdas/handlers/sync-templates');
  const workspace = kit.workspaceItem({ settings: { provider: 'whatsapp', whatsappBusinessAccountId: '102290129340398' } as never });
  ddb.on(QueryCommand).resolves({ Items: [{ workspaceId: workspace.id }] });
  ddb.on(GetCommand).callsFake(kit.itemsByKey([workspace]));
  jest.spyOn(globalThis, 'fetch').mockImplementation(() => Promise.resolve(malformedTokenAnswer()));

  const logs = captureLogLines();
  await expect(syncAllTemplates().finally(logs.restore)).rejects.toThrow(/Template sync failed for 1 of 1/);

  expect(logs.lines.map((line) => line.message)).toContain('Template sync failed');
  const leaking = logs.lines.filter((line) => JSON.stringify(line).includes(TOKEN.slice(0, 20)));
  expect(leaking.map((line) => `${String(line.level)} ${String(line.message)}`)).toEqual([]);
});
