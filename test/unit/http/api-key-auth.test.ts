import { GetCommand, QueryCommand, DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { mockClient } from 'aws-sdk-client-mock';
import { clearApiKeyCache } from '../../../lambdas/domain/api-keys/authenticate';
import { hashApiKey } from '../../../lambdas/domain/api-keys/api-key-secret';
import { handler } from '../../../lambdas/handlers/list-templates';
import { keys } from '../../../lambdas/shared/table';
import { apiKeyItem } from '../../support/api-keys';
import { invokeRoute, parseResult, routeEvent } from '../../support/events';

const ddb = mockClient(DynamoDBDocumentClient);
const KEY = 'msk_test_AAAAbbbbCCCCdddd0001';
const TABLE = process.env.TABLE_NAME!;
const invoke = async (apiKey?: string) => parseResult(await invokeRoute('listTemplates', handler, apiKey ? { apiKey } : {}));
const keyLookup = { TableName: TABLE, Key: keys.apiKey(hashApiKey(KEY)) };
const storeKey = (item: object | undefined) => ddb.on(GetCommand, keyLookup).resolves(item ? { Item: item } : {});

beforeEach(() => {
  ddb.reset();
  clearApiKeyCache();
  ddb.on(QueryCommand).resolves({ Items: [] });
  jest.useRealTimers();
});

describe('X-API-Key authentication', () => {
  it('rejects a request without a key with 401 and the contract error body, without touching the table', async () => {
    const { status, body } = await invoke();
    expect(status).toBe(401);
    expect(body).toEqual({ success: false, error: 'unauthorized', message: 'The X-API-Key header is required', requestId: expect.any(String) });
    expect(ddb.calls()).toHaveLength(0);
  });

  // API Gateway hands a repeated header to the function as its last value, and its authorizer
  // may count the request against the first key's usage plan: one request, two identities. A
  // client that sends two keys is told so, and neither is looked up.
  it('rejects a request carrying two X-API-Key headers with 401, without touching the table', async () => {
    const event = routeEvent('listTemplates', { headers: { 'X-API-Key': 'msk_test_AAAAbbbbCCCCdddd0002' }, apiKey: KEY });
    expect(event.multiValueHeaders['X-API-Key']).toEqual(['msk_test_AAAAbbbbCCCCdddd0002', KEY]);
    const { status, body } = parseResult(await invokeRoute('listTemplates', handler, event));
    expect(status).toBe(401);
    expect(body).toEqual({ success: false, error: 'unauthorized', message: 'Send one X-API-Key header, not 2', requestId: expect.any(String) });
    expect(ddb.calls()).toHaveLength(0);
  });

  // Header names are case-insensitive: two whose names differ only in case are two keys all the
  // same, as the usage-plan authorizer counts them (Middy's normaliser folds them into one).
  it('rejects two X-API-Key headers whose names differ only in case, as the authorizer does', async () => {
    const event = routeEvent('listTemplates', { headers: { 'x-api-key': 'msk_test_AAAAbbbbCCCCdddd0002' }, apiKey: KEY });
    expect(Object.keys(event.multiValueHeaders).filter((name) => name.toLowerCase() === 'x-api-key')).toHaveLength(2);
    const { status, body } = parseResult(await invokeRoute('listTemplates', handler, event));
    expect([status, body.message]).toEqual([401, 'Send one X-API-Key header, not 2']);
    expect(ddb.calls()).toHaveLength(0);
  });

  it('rejects a malformed key with 401 without a lookup', async () => {
    const { status, body } = await invoke('not a key');
    expect(status).toBe(401);
    expect(body.error).toBe('unauthorized');
    expect(ddb.calls()).toHaveLength(0);
  });

  it('looks an unknown key up by its SHA-256 hash only, and answers 401', async () => {
    storeKey(undefined);
    const { status, body } = await invoke(KEY);
    expect(status).toBe(401);
    expect(body.message).toBe('The API key is not recognised');
    expect(ddb.commandCalls(GetCommand, keyLookup)).toHaveLength(1);
    expect(JSON.stringify(ddb.calls().map((call) => call.args[0].input))).not.toContain(KEY);
  });

  it('rejects a revoked key with 401', async () => {
    storeKey(apiKeyItem(KEY, { status: 'revoked', revokedAt: '2026-02-01T00:00:00.000Z' }));
    const { status, body } = await invoke(KEY);
    expect([status, body.message]).toEqual([401, 'The API key has been revoked']);
  });

  it('rejects an expired key with 401', async () => {
    storeKey(apiKeyItem(KEY, { expiresAt: '2020-01-01T00:00:00.000Z' }));
    const { status, body } = await invoke(KEY);
    expect([status, body.message]).toEqual([401, 'The API key has expired']);
  });

  it('answers 403 for a valid key that lacks the route scope', async () => {
    storeKey(apiKeyItem(KEY, { scopes: ['messages:read'] }));
    const { status, body } = await invoke(KEY);
    expect(status).toBe(403);
    expect(body).toEqual({
      success: false,
      error: 'forbidden',
      message: 'This API key lacks the scope "templates:read" required by this operation',
      requestId: expect.any(String),
    });
  });

  it('lets a key with the scope through, queries only its own workspace, and caches the lookup', async () => {
    storeKey(apiKeyItem(KEY, { workspaceId: 'ws-a', scopes: ['templates:read'] }));
    expect((await invoke(KEY)).status).toBe(200);
    expect((await invoke(KEY)).status).toBe(200);
    expect(ddb.commandCalls(GetCommand, keyLookup)).toHaveLength(1);
    const queries = ddb.commandCalls(QueryCommand).map((call) => call.args[0].input.ExpressionAttributeValues);
    expect(queries).toEqual([{ ':pk': 'WS#ws-a', ':prefix': 'TPL#' }, { ':pk': 'WS#ws-a', ':prefix': 'TPL#' }]);
  });

  it('notices a revocation once the cached lookup is older than the cache TTL (30 s by default)', async () => {
    jest.useFakeTimers({ now: new Date('2026-03-01T00:00:00Z'), doNotFake: ['nextTick', 'setImmediate', 'queueMicrotask'] });
    storeKey(apiKeyItem(KEY));
    expect((await invoke(KEY)).status).toBe(200);

    storeKey(apiKeyItem(KEY, { status: 'revoked' }));
    jest.setSystemTime(new Date('2026-03-01T00:00:29Z'));
    expect((await invoke(KEY)).status).toBe(200);
    jest.setSystemTime(new Date('2026-03-01T00:00:31Z'));
    expect((await invoke(KEY)).status).toBe(401);
  });
});
