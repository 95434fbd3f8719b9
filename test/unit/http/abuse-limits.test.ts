import { DynamoDBDocumentClient, GetCommand } from '@aws-sdk/lib-dynamodb';
import { SQSClient } from '@aws-sdk/client-sqs';
import { mockClient } from 'aws-sdk-client-mock';
import { clearApiKeyCache } from '../../../lambdas/domain/api-keys/authenticate';
import { handler as sendMessage } from '../../../lambdas/handlers/send-message';
import { handler as conversationMessages } from '../../../lambdas/handlers/conversation-messages';
import { MAX_VARIABLE_BYTES } from '../../../lambdas/handlers/send-message.schema';
import { handler as trackingSummary } from '../../../lambdas/handlers/tracking-summary';
import { MAX_BODY_BYTES, MAX_BODY_DEPTH, nestingExceeds } from '../../../lambdas/http/middleware/body-limits';
import { apiKeyItem } from '../../support/api-keys';
import { invokeRoute, parseResult, routeEvent } from '../../support/events';

/**
 * Abuse is cheap to refuse (issue 15): whatever a key holder sends, the answer is a small contract
 * error, reached before any parser or store does real work — never a 500.
 */
const ddb = mockClient(DynamoDBDocumentClient);
const sqs = mockClient(SQSClient);
const KEY = 'msk_test_abuse00000000001';
beforeEach(() => {
  ddb.reset();
  sqs.reset();
  clearApiKeyCache();
  ddb.on(GetCommand).resolves({ Item: apiKeyItem(KEY, { workspaceId: 'ws-abuse' }) });
});

const TEMPLATE_ID = '7b0c5c3e-0000-4000-8000-000000000001';
const send = async (body: string | object) => parseResult(await invokeRoute('sendMessage', sendMessage, routeEvent('sendMessage', { apiKey: KEY, body, headers: { 'Content-Type': 'application/json' } })));
const contractError = (status: number, error: string, message: RegExp) => ({ status, body: { success: false, error, message: expect.stringMatching(message), requestId: expect.any(String) } });
/** Only the API key was read: the request was refused before anything else. */
const onlyTheKeyWasRead = () => expect(ddb.calls().map((call) => (call.args[0].input as { Key?: { pk?: string } }).Key?.pk?.slice(0, 4))).toEqual(['KEY#']);

describe('bodies', () => {
  it('refuses a body over the limit with 413, before reading it', async () => {
    const { status, body } = await send(`{"to":"${'x'.repeat(MAX_BODY_BYTES)}"}`);
    expect({ status, body }).toEqual(contractError(413, 'payload_too_large', /^The body is \d+ bytes; at most 2097152 are read$/));
    onlyTheKeyWasRead();
    expect(sqs.calls()).toHaveLength(0);
  });

  it('refuses a deeply nested body with 422, naming the limit, before parsing it', async () => {
    const { status, body } = await send(`${'['.repeat(100_000)}${']'.repeat(100_000)}`);
    expect({ status, body }).toEqual(contractError(422, 'validation_failed', new RegExp(`^body: nests deeper than ${MAX_BODY_DEPTH} levels$`)));
    onlyTheKeyWasRead();
  });

  it('does not count brackets inside strings as nesting: the body is read and judged on its content', async () => {
    const { status, body } = await send({ channel: 'whatsapp', to: '[[[[[[[[[[[[[[[[[[[["\\', content: { type: 'text', text: '{{{{{{{{{{{{{{{{{{{{{{' } });
    // Read and judged on its content: the channel and content rule, not the nesting guard.
    expect({ status, body }).toEqual(contractError(422, 'unsupported_channel_content', /^channel "whatsapp" with content type "text"/));
    expect(nestingExceeds('{"a":"[[[[[[[[[[[[[[[[[[[[\\"[[[[[[[[[[[[[[[[[["}', 2)).toBe(false);
    expect(nestingExceeds('[[[', 2)).toBe(true);
  });

  it('names at most five unknown fields, however many were sent', async () => {
    const fields = Object.fromEntries(Array.from({ length: 20_000 }, (_, i) => [`field${i}`, 1]));
    const { status, body } = await send({ channel: 'whatsapp', to: '081234567890', content: { type: 'text', text: 'hi' }, ...fields });
    expect({ status, body }).toEqual(contractError(422, 'validation_failed', /^body: Unrecognized keys: "field0", "field1", "field2", "field3", "field4" and 19995 more$/));
    expect(JSON.stringify(body).length).toBeLessThan(300);
  });

  it('refuses template variables that could not be stored in one item, naming the limit', async () => {
    const variables = Object.fromEntries(Array.from({ length: 50 }, (_, i) => [`v${i}`, 'é'.repeat(4000)]));
    const { status, body } = await send({ channel: 'whatsapp', to: '081234567890', content: { type: 'template', templateId: TEMPLATE_ID, variables } });
    expect({ status, body }).toEqual(contractError(422, 'validation_failed', new RegExp(`^body\\.content\\.variables: at most ${MAX_VARIABLE_BYTES / 1000} KB of names and values together`)));
    onlyTheKeyWasRead();
  });
});

describe('report periods', () => {
  it('checks a period of millennia by arithmetic: 422 at once', async () => {
    const event = routeEvent('trackingSummary', { apiKey: KEY, query: { startDate: '0100-01-01', endDate: '9999-12-31', trackingTags: 'promo' } });
    const { status, body } = parseResult(await invokeRoute('trackingSummary', trackingSummary, event));
    expect({ status, body }).toEqual(contractError(422, 'validation_failed', /^query\.endDate: the period may span at most 366 days$/));
    onlyTheKeyWasRead();
  });
});

describe('cursors', () => {
  it('answers a cursor whose signature checks but whose content is not ours with 422, not 500', async () => {
    const { createHmac } = await import('node:crypto');
    // Signed with the run's key (as a leaked key would allow): neither JSON nor a table key inside.
    const forge = (content: string) => {
      const payload = Buffer.from(content).toString('base64url');
      return `${payload}.${createHmac('sha256', process.env.CURSOR_SECRET!).update(payload).digest('base64url')}`;
    };
    for (const cursor of [forge('not json'), forge('{"k":"x","s":1}'), forge('[]')]) {
      const event = routeEvent('conversationMessages', { apiKey: KEY, pathParameters: { conversationId: '7b0c5c3e-0000-4000-8000-0000000000c1' }, query: { cursor } });
      const { status, body } = parseResult(await invokeRoute('conversationMessages', conversationMessages, event));
      expect({ status, body }).toEqual(contractError(422, 'validation_failed', /^query\.cursor: not a cursor this request can use$/));
    }
  });
});
