import { DynamoDBDocumentClient, GetCommand } from '@aws-sdk/lib-dynamodb';
import { mockClient } from 'aws-sdk-client-mock';
import { hashApiKey } from '../../../lambdas/domain/api-keys/api-key-secret';
import { usageIdentityOf } from '../../../lambdas/domain/api-keys/usage-identity';
import { handler as authorizer } from '../../../lambdas/handlers/usage-plan-authorizer';
import { handler as sendMessage } from '../../../lambdas/handlers/send-message';
import { keys } from '../../../lambdas/shared/table';
import { apiKeyItem, authorizerEvent, invokeRoute, lambdaContext, parseResult, resetContainerCaches } from '../../../lib/testing';

const ddb = mockClient(DynamoDBDocumentClient);
const TABLE = process.env.TABLE_NAME!;
const KEY = 'msk_test_AAAAbbbbCCCCdddd0001';
const OWN_USAGE_KEY = 'Zk3q9v0Lr8WmT2yXc5Hn7Bd1Fg4Js6Pa';
const KEY_ID = '0c9d5f7e-1111-4222-8333-444455556666';

const keyLookup = { TableName: TABLE, Key: keys.apiKey(hashApiKey(KEY)) };
const workspaceLookup = { TableName: TABLE, Key: keys.workspace('ws-test') };
const storedWorkspace = (extra: object = {}) => ({
  ...keys.workspace('ws-test'),
  entity: 'workspace',
  id: 'ws-test',
  name: 'Test',
  rupiahPerCredit: 150,
  settings: { sendsPerMinute: 600, dedupe: 'none', provider: 'sandbox', creditCostByCategory: { MARKETING: 2, UTILITY: 1, AUTHENTICATION: 1 } },
  createdAt: '2026-01-01T00:00:00.000Z',
  updatedAt: '2026-01-01T00:00:00.000Z',
  ...extra,
});
const authorize = (routeId: Parameters<typeof authorizerEvent>[0], headers: Record<string, string>) => authorizer(authorizerEvent(routeId, { headers }), lambdaContext('authorizer'));

beforeEach(() => {
  ddb.reset();
  resetContainerCaches();
});

describe('usage-plan authorizer', () => {
  it('allows the whole stage for a valid key, counted against its workspace’s own usage key', async () => {
    ddb.on(GetCommand, keyLookup).resolves({ Item: apiKeyItem(KEY, { scopes: ['messages:send'] }) });
    ddb.on(GetCommand, workspaceLookup).resolves({ Item: storedWorkspace({ settings: { ...storedWorkspace().settings, usagePlan: 'bulk' }, gatewayUsageKey: { id: 'k1a2b3', value: OWN_USAGE_KEY } }) });

    const result = await authorize('sendMessage', { 'X-API-Key': KEY });

    expect(result).toEqual({
      principalId: KEY_ID,
      usageIdentifierKey: OWN_USAGE_KEY,
      // API Gateway caches this answer by the key and reuses it on every route of the stage.
      policyDocument: { Version: '2012-10-17', Statement: [{ Action: 'execute-api:Invoke', Effect: 'Allow', Resource: 'arn:aws:execute-api:ap-southeast-3:123456789012:abc123/prod/*' }] },
      context: { workspaceId: 'ws-test', apiKeyId: KEY_ID, usageKey: 'own' },
    });
  });

  it('counts a workspace without a usage key of its own against the stack’s fallback key', async () => {
    ddb.on(GetCommand, keyLookup).resolves({ Item: apiKeyItem(KEY) });
    ddb.on(GetCommand, workspaceLookup).resolves({ Item: storedWorkspace() });

    const result = await authorize('listTemplates', { 'x-api-key': KEY });

    expect(result).toMatchObject({ usageIdentifierKey: process.env.FALLBACK_USAGE_KEY, context: { usageKey: 'fallback' } });
  });

  it('fails naming FALLBACK_USAGE_KEY when a workspace has no usage key and the variable is not set (a wiring fault, 500)', async () => {
    ddb.on(GetCommand, keyLookup).resolves({ Item: apiKeyItem(KEY) });
    ddb.on(GetCommand, workspaceLookup).resolves({ Item: storedWorkspace() });
    // The handler passes config.FALLBACK_USAGE_KEY, read once per container: unset, it is undefined.
    await expect(usageIdentityOf(KEY, { fallbackKey: undefined })).rejects.toThrow('Workspace ws-test has no gateway usage key and FALLBACK_USAGE_KEY (the stack’s fallback key) is not set');
  });

  it('allows a key without the route’s scope, whose 403 the route answers itself in the contract body', async () => {
    ddb.on(GetCommand, keyLookup).resolves({ Item: apiKeyItem(KEY, { scopes: ['templates:read'] }) });
    ddb.on(GetCommand, workspaceLookup).resolves({ Item: storedWorkspace() });

    const allowed = await authorize('sendMessage', { 'X-API-Key': KEY });
    const { status, body } = parseResult(await invokeRoute('sendMessage', sendMessage, { apiKey: KEY, body: {} }));

    expect(allowed.policyDocument.Statement).toEqual([expect.objectContaining({ Effect: 'Allow' })]);
    expect([status, body.error]).toEqual([403, 'forbidden']);
  });

  it.each([
    ['no key', undefined, undefined],
    ['a malformed key', 'not a key', undefined],
    ['an unknown key', KEY, undefined],
    ['a revoked key', KEY, apiKeyItem(KEY, { status: 'revoked', revokedAt: '2026-02-01T00:00:00.000Z' })],
    ['an expired key', KEY, apiKeyItem(KEY, { expiresAt: '2020-01-01T00:00:00.000Z' })],
  ])('refuses %s with API Gateway’s 401 ("Unauthorized"), as every route answers it 401', async (_, key, stored) => {
    ddb.on(GetCommand, keyLookup).resolves(stored ? { Item: stored } : {});
    const headers: Record<string, string> = key ? { 'X-API-Key': key } : {};

    await expect(authorize('listTemplates', headers)).rejects.toThrow(new Error('Unauthorized'));
    resetContainerCaches();
    const { status, body } = parseResult(await invokeRoute('sendMessage', sendMessage, { headers, body: {} }));
    expect([status, body.error]).toEqual([401, 'unauthorized']);
    expect(ddb.commandCalls(GetCommand, workspaceLookup)).toHaveLength(0);
  });

  it('refuses two X-API-Key headers with 401, as the route does: the plan counted and the caller served are one key', async () => {
    ddb.on(GetCommand, keyLookup).resolves({ Item: apiKeyItem(KEY) });
    ddb.on(GetCommand, workspaceLookup).resolves({ Item: storedWorkspace() });
    const event = authorizerEvent('listTemplates', { headers: { 'X-API-Key': 'msk_test_AAAAbbbbCCCCdddd0002' }, apiKey: KEY });

    await expect(authorizer(event, lambdaContext('authorizer'))).rejects.toThrow(new Error('Unauthorized'));
    expect(ddb.calls()).toHaveLength(0);
  });

  it('fails (API Gateway answers 503) when the table cannot be read, rather than refusing the key', async () => {
    ddb.on(GetCommand, keyLookup).rejects(Object.assign(new Error('Service unavailable'), { name: 'ServiceUnavailable' }));

    await expect(authorize('listTemplates', { 'X-API-Key': KEY })).rejects.toThrow('Service unavailable');
  });
});
