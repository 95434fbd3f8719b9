import { TransactionCanceledException } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient, GetCommand, QueryCommand, TransactWriteCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { SendMessageBatchCommand, SQSClient } from '@aws-sdk/client-sqs';
import { mockClient } from 'aws-sdk-client-mock';
import { handler as createEndpoint } from '../../../lambdas/handlers/create-webhook-endpoint';
import { handler as deleteEndpoint } from '../../../lambdas/handlers/delete-webhook-endpoint';
import { handler as getEndpoint } from '../../../lambdas/handlers/get-webhook-endpoint';
import { handler as listEndpoints } from '../../../lambdas/handlers/list-webhook-endpoints';
import { handler as rotateSecret } from '../../../lambdas/handlers/rotate-webhook-secret';
import { handler as testEndpoint } from '../../../lambdas/handlers/test-webhook-endpoint';
import { handler as updateEndpoint } from '../../../lambdas/handlers/update-webhook-endpoint';
import type { Scope } from '../../../lambdas/shared/scopes';
import { keys } from '../../../lambdas/shared/table';
import { apiKeyItem, invokeRoute, parseResult, resetContainerCaches, routeEvent } from '../../../lib/testing';
import { contractErrorProblem } from '../../support/contract-error';

const ddb = mockClient(DynamoDBDocumentClient);
const sqs = mockClient(SQSClient);
const TABLE = process.env.TABLE_NAME!;
const KEY = 'msk_test_webhooks_0001';
const WS = 'ws-test';
const ID = 'whe_0123456789abcdef0123456789abcdef';
const SECRET = 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw8dr6aD2Hj0o=';
const storedEndpoint = {
  ...keys.webhookEndpoint(WS, ID),
  entity: 'webhookEndpoint',
  id: ID,
  workspaceId: WS,
  url: 'https://93.184.215.14/hooks',
  events: null,
  description: null,
  status: 'disabled',
  disabledReason: 'gone',
  createdAt: '2026-11-01T00:00:00.000Z',
  updatedAt: '2026-11-02T00:00:00.000Z',
  secrets: [{ secret: SECRET, expiresAt: null }],
};
const resource = { id: ID, url: storedEndpoint.url, events: null, description: null, status: 'disabled', disabledReason: 'gone', createdAt: storedEndpoint.createdAt, updatedAt: storedEndpoint.updatedAt };

/** The key lookup and, for any other key, the endpoint (or nothing). */
function givenKey(scopes: Scope[] = ['webhooks:manage'], endpoint: Record<string, unknown> | null = storedEndpoint) {
  const keyItem = apiKeyItem(KEY, { scopes, workspaceId: WS });
  ddb.on(GetCommand).callsFake(({ Key }: { Key: { pk: string } }) => ({ Item: Key.pk === keyItem.pk ? keyItem : Key.pk === `WS#${WS}#WHE` ? (endpoint ?? undefined) : undefined }));
}

const expectContractError = (status: number, body: unknown, code: string, message?: string | RegExp) => {
  expect(contractErrorProblem(status, body)).toBeUndefined();
  expect(body).toMatchObject({ success: false, error: code, ...(message === undefined ? {} : { message }) });
};

beforeEach(() => {
  ddb.reset();
  sqs.reset();
  resetContainerCaches();
});

describe('POST /v1/webhook-endpoints', () => {
  it('answers 201 with the endpoint and its secret, writing the endpoint and the count in one transaction', async () => {
    givenKey();
    ddb.on(TransactWriteCommand).resolves({});

    const { status, body } = parseResult(await invokeRoute('createWebhookEndpoint', createEndpoint, { apiKey: KEY, body: { url: 'https://93.184.215.14/hooks', events: ['message.received', 'message.received'], description: ' CRM ' } }));

    expect(status).toBe(201);
    expect(body).toEqual({
      id: expect.stringMatching(/^whe_[0-9a-f]{32}$/),
      url: 'https://93.184.215.14/hooks',
      events: ['message.received'],
      description: 'CRM',
      status: 'enabled',
      disabledReason: null,
      createdAt: expect.any(String),
      updatedAt: expect.any(String),
      secret: expect.stringMatching(/^whsec_[A-Za-z0-9+/]{43}=$/),
    });
    const { id, secret, createdAt } = body as { id: string; secret: string; createdAt: string };
    const [transaction] = ddb.commandCalls(TransactWriteCommand);
    expect(transaction!.args[0].input.TransactItems).toEqual([
      {
        Put: {
          TableName: TABLE,
          Item: { ...keys.webhookEndpoint(WS, id), entity: 'webhookEndpoint', id, workspaceId: WS, url: 'https://93.184.215.14/hooks', events: ['message.received'], description: 'CRM', status: 'enabled', disabledReason: null, createdAt, updatedAt: createdAt, enabledAt: createdAt, secrets: [{ secret, expiresAt: null }] },
          ConditionExpression: 'attribute_not_exists(pk)',
        },
      },
      { Update: expect.objectContaining({ TableName: TABLE, Key: keys.webhookEndpointCount(WS), ConditionExpression: 'attribute_not_exists(#count) OR #count < :cap', ExpressionAttributeValues: expect.objectContaining({ ':cap': 10 }) }) },
    ]);
  });

  it('with an Idempotency-Key, claims the key in the same transaction, its record holding the answer for 24 h (decision 197)', async () => {
    givenKey();
    ddb.on(TransactWriteCommand).resolves({});

    const { status, headers, body } = parseResult(
      await invokeRoute('createWebhookEndpoint', createEndpoint, { apiKey: KEY, body: { url: 'https://93.184.215.14/hooks' }, headers: { 'Idempotency-Key': 'crm-setup-1' } }),
    );

    expect([status, headers['idempotent-replayed']]).toEqual([201, undefined]);
    // The key is looked up first (consistently), then claimed beside the endpoint and the count.
    expect(ddb.commandCalls(GetCommand).map((call) => call.args[0].input)).toContainEqual({ TableName: TABLE, Key: keys.endpointIdempotency(WS, 'crm-setup-1'), ConsistentRead: true });
    const items = ddb.commandCalls(TransactWriteCommand)[0]!.args[0].input.TransactItems!;
    expect(items).toHaveLength(3);
    const claim = items[2]!.Put!;
    expect(claim).toMatchObject({
      TableName: TABLE,
      Item: { ...keys.endpointIdempotency(WS, 'crm-setup-1'), entity: 'endpointIdempotencyRecord', workspaceId: WS, fingerprint: expect.stringMatching(/^[0-9a-f]{64}$/), response: body },
      ConditionExpression: 'attribute_not_exists(pk) OR #ttl < :now',
    });
    expect((claim.Item!.ttl as number) - (claim.ExpressionAttributeValues![':now'] as number)).toBe(24 * 60 * 60);
  });

  it('answers 409 webhook_endpoint_limit_reached when the count refuses the 11th', async () => {
    givenKey();
    ddb.on(TransactWriteCommand).rejects(new TransactionCanceledException({ message: 'cancelled', $metadata: {}, CancellationReasons: [{ Code: 'None' }, { Code: 'ConditionalCheckFailed' }] }));

    const { status, body } = parseResult(await invokeRoute('createWebhookEndpoint', createEndpoint, { apiKey: KEY, body: { url: 'https://93.184.215.14/hooks' } }));

    expect(status).toBe(409);
    expectContractError(status, body, 'webhook_endpoint_limit_reached', 'A workspace may have at most 10 webhook endpoints; delete one first');
  });

  it.each([
    [{ url: 'https://10.0.0.1/hooks' }, 'body.url: must not point to a private address (10.0.0.1)'],
    [{ url: 'https://169.254.169.254/latest/meta-data' }, 'body.url: must not point to a cloud metadata address (169.254.169.254)'],
    [{ url: 'http://93.184.215.14/hooks' }, 'body.url: must use https'],
    [{ url: 'http://127.0.0.1:4000/hooks' }, 'body.url: must use https'],
    [{ url: 'https://93.184.215.14/', events: ['message.sent'] }, 'body.events.0: must be one of message.status.updated, message.received, template.status.updated, marketing_opt_out.updated'],
    [{ url: 'https://93.184.215.14/', events: [] }, 'body.events: must name at least one event type, or be null for every type'],
    [{ url: 'https://93.184.215.14/', description: 'x'.repeat(201) }, 'body.description: must be at most 200 characters'],
    [{ url: 'https://93.184.215.14/', secret: 'whsec_mine' }, 'body: Unrecognized key: "secret"'],
    [{ events: null }, 'body.url: must be a string'],
  ])('answers 422 validation_failed for %j and writes nothing', async (request, message) => {
    givenKey();

    const { status, body } = parseResult(await invokeRoute('createWebhookEndpoint', createEndpoint, { apiKey: KEY, body: request }));

    expect(status).toBe(422);
    expectContractError(status, body, 'validation_failed', message);
    expect(ddb.commandCalls(TransactWriteCommand)).toHaveLength(0);
  });

  it('answers 403 to a key without webhooks:manage', async () => {
    givenKey(['messages:send', 'messages:read', 'templates:read']);

    const { status, body } = parseResult(await invokeRoute('createWebhookEndpoint', createEndpoint, { apiKey: KEY, body: { url: 'https://93.184.215.14/hooks' } }));

    expect(status).toBe(403);
    expectContractError(status, body, 'forbidden', 'This API key lacks the scope "webhooks:manage" required by this operation');
  });
});

describe('reading endpoints', () => {
  it('lists the workspace’s endpoints from its one partition, without secrets', async () => {
    givenKey();
    ddb.on(QueryCommand).resolves({ Items: [storedEndpoint] });

    const { status, body } = parseResult(await invokeRoute('listWebhookEndpoints', listEndpoints, { apiKey: KEY }));

    expect(status).toBe(200);
    expect(body).toEqual({ items: [resource] });
    expect(ddb.commandCalls(QueryCommand)[0]!.args[0].input).toMatchObject({ TableName: TABLE, ExpressionAttributeValues: { ':pk': `WS#${WS}#WHE`, ':prefix': 'WHE#' } });
  });

  it('reads one endpoint, never its secret', async () => {
    givenKey();

    const { status, body } = parseResult(await invokeRoute('getWebhookEndpoint', getEndpoint, { apiKey: KEY, pathParameters: { id: ID } }));

    expect([status, body]).toEqual([200, resource]);
    expect(JSON.stringify(body)).not.toContain('whsec_');
  });

  it('answers 404 for an id the workspace does not have, and 422 for a malformed one', async () => {
    givenKey(undefined, null);

    const missing = parseResult(await invokeRoute('getWebhookEndpoint', getEndpoint, { apiKey: KEY, pathParameters: { id: ID } }));
    expectContractError(missing.status, missing.body, 'not_found', 'Webhook endpoint was not found');
    expect(missing.status).toBe(404);

    const malformed = parseResult(await invokeRoute('getWebhookEndpoint', getEndpoint, { apiKey: KEY, pathParameters: { id: 'not-an-id' } }));
    expect(malformed.status).toBe(422);
    expectContractError(malformed.status, malformed.body, 'validation_failed', 'path.id: must be a webhook endpoint id: whe_ and 32 lowercase hex digits');
  });
});

describe('PATCH /v1/webhook-endpoints/{id}', () => {
  it('re-enables a disabled endpoint, clearing its reason, and answers the endpoint as stored', async () => {
    givenKey();
    ddb.on(UpdateCommand).resolves({ Attributes: { ...storedEndpoint, status: 'enabled', disabledReason: null, updatedAt: '2026-11-23T00:00:00.000Z' } });

    const { status, body } = parseResult(await invokeRoute('updateWebhookEndpoint', updateEndpoint, { apiKey: KEY, pathParameters: { id: ID }, body: { status: 'enabled' } }));

    expect([status, body]).toEqual([200, { ...resource, status: 'enabled', disabledReason: null, updatedAt: '2026-11-23T00:00:00.000Z' }]);
    expect(ddb.commandCalls(UpdateCommand)[0]!.args[0].input).toMatchObject({
      Key: keys.webhookEndpoint(WS, ID),
      UpdateExpression: 'SET #status = :status, #disabledReason = :disabledReason, #enabledAt = :enabledAt, #updatedAt = :updatedAt',
      ConditionExpression: 'attribute_exists(pk)',
      ExpressionAttributeValues: { ':status': 'enabled', ':disabledReason': null, ':enabledAt': expect.any(String) },
    });
  });

  it.each([
    [{}, 'body: name at least one of url, events, description, status'],
    [{ status: 'disabled' }, 'body.status: can only be "enabled": it re-enables a disabled endpoint'],
    [{ url: 'https://[::ffff:127.0.0.1]/' }, 'body.url: must not point to a loopback address (127.0.0.1, inside an IPv6 address) (::ffff:7f00:1)'],
    [{ enabled: true }, 'body: Unrecognized key: "enabled"'],
  ])('answers 422 for %j and writes nothing', async (patch, message) => {
    givenKey();

    const { status, body } = parseResult(await invokeRoute('updateWebhookEndpoint', updateEndpoint, { apiKey: KEY, pathParameters: { id: ID }, body: patch }));

    expect(status).toBe(422);
    expectContractError(status, body, 'validation_failed', message);
    expect(ddb.commandCalls(UpdateCommand)).toHaveLength(0);
  });
});

describe('DELETE and rotate-secret', () => {
  it('deletes with 204, no body and no Content-Type', async () => {
    givenKey();
    ddb.on(TransactWriteCommand).resolves({});

    const result = await invokeRoute('deleteWebhookEndpoint', deleteEndpoint, { apiKey: KEY, pathParameters: { id: ID } });

    expect(result.statusCode).toBe(204);
    expect(result.body).toBe('');
    expect(result.headers?.['content-type']).toBeUndefined();
    expect(ddb.commandCalls(TransactWriteCommand)[0]!.args[0].input.TransactItems).toEqual([
      { Delete: { TableName: TABLE, Key: keys.webhookEndpoint(WS, ID), ConditionExpression: 'attribute_exists(pk)' } },
      { Update: expect.objectContaining({ Key: keys.webhookEndpointCount(WS), UpdateExpression: 'SET #count = #count - :one' }) },
    ]);
  });

  it('answers 404 when the endpoint to delete does not exist', async () => {
    givenKey();
    ddb.on(TransactWriteCommand).rejects(new TransactionCanceledException({ message: 'cancelled', $metadata: {}, CancellationReasons: [{ Code: 'ConditionalCheckFailed' }, { Code: 'None' }] }));

    const { status, body } = parseResult(await invokeRoute('deleteWebhookEndpoint', deleteEndpoint, { apiKey: KEY, pathParameters: { id: ID } }));

    expect(status).toBe(404);
    expectContractError(status, body, 'not_found');
  });

  it('rotates with the default overlap of 24 h when the body is {}', async () => {
    givenKey();
    ddb.on(UpdateCommand).resolves({});
    const before = Date.now();

    const { status, body } = parseResult(await invokeRoute('rotateWebhookSecret', rotateSecret, { apiKey: KEY, pathParameters: { id: ID }, body: {} }));

    expect(status).toBe(200);
    const { secret, previousSecretExpiresAt } = body as { secret: string; previousSecretExpiresAt: string };
    expect(secret).toMatch(/^whsec_/);
    expect(secret).not.toBe(SECRET);
    expect(Date.parse(previousSecretExpiresAt) - before).toBeGreaterThanOrEqual(86_400_000);
    expect(Date.parse(previousSecretExpiresAt) - Date.now()).toBeLessThanOrEqual(86_400_000);
    expect(ddb.commandCalls(UpdateCommand)[0]!.args[0].input.ExpressionAttributeValues).toMatchObject({
      ':secrets': [
        { secret, expiresAt: null },
        { secret: SECRET, expiresAt: previousSecretExpiresAt },
      ],
      ':current': SECRET,
    });
  });

  it.each([[{ overlapSeconds: 604_801 }], [{ overlapSeconds: -1 }], [{ overlapSeconds: 1.5 }], [{ overlapSeconds: '3600' }]])('refuses %j with 422', async (request) => {
    givenKey();

    const { status, body } = parseResult(await invokeRoute('rotateWebhookSecret', rotateSecret, { apiKey: KEY, pathParameters: { id: ID }, body: request }));

    expect(status).toBe(422);
    expectContractError(status, body, 'validation_failed', 'body.overlapSeconds: must be a whole number of seconds from 0 to 604800');
  });
});

describe('POST /v1/webhook-endpoints/{id}/test', () => {
  it('answers 202 with the event id once the queue took it', async () => {
    givenKey(['webhooks:manage'], { ...storedEndpoint, status: 'enabled', disabledReason: null });
    sqs.on(SendMessageBatchCommand).resolves({ Successful: [{ Id: '0', MessageId: 'm', MD5OfMessageBody: 'x' }], Failed: [] });

    const { status, body } = parseResult(await invokeRoute('testWebhookEndpoint', testEndpoint, { apiKey: KEY, pathParameters: { id: ID } }));

    expect(status).toBe(202);
    expect(body).toEqual({ eventId: expect.stringMatching(/^evt_/) });
    expect(JSON.parse(sqs.commandCalls(SendMessageBatchCommand)[0]!.args[0].input.Entries![0]!.MessageBody!)).toMatchObject({ endpointId: ID, type: 'webhook.test', attempt: 1 });
  });

  // SQS's batch answers 200 while refusing an entry (SenderFault false: its own trouble): a retry, not our fault.
  it('answers 503 service_unavailable, not 500, when the queue refuses the event in its batch answer', async () => {
    givenKey(['webhooks:manage'], { ...storedEndpoint, status: 'enabled', disabledReason: null });
    sqs.on(SendMessageBatchCommand).resolves({ Successful: [], Failed: [{ Id: '0', SenderFault: false, Code: 'InternalError', Message: 'We encountered an internal error' }] });

    const result = await invokeRoute('testWebhookEndpoint', testEndpoint, { apiKey: KEY, pathParameters: { id: ID } });
    const { status, body } = parseResult(result);

    expect(status).toBe(503);
    expectContractError(status, body, 'service_unavailable');
    expect(result.headers).toMatchObject({ 'Retry-After': '1' });
  });

  // docs/api.md#webhook-endpoints: "Unknown body fields are 422 as everywhere"; the route takes none.
  it('answers 422 validation_failed to a body with fields, queueing nothing, and takes an empty object as no body', async () => {
    givenKey(['webhooks:manage'], { ...storedEndpoint, status: 'enabled', disabledReason: null });
    sqs.on(SendMessageBatchCommand).resolves({ Successful: [{ Id: '0', MessageId: 'm', MD5OfMessageBody: 'x' }], Failed: [] });

    const refused = parseResult(await invokeRoute('testWebhookEndpoint', testEndpoint, { apiKey: KEY, pathParameters: { id: ID }, body: { type: 'message.status.updated' } }));
    expect(refused.status).toBe(422);
    expectContractError(refused.status, refused.body, 'validation_failed', 'This route takes no request body');
    expect(sqs.commandCalls(SendMessageBatchCommand)).toHaveLength(0);

    expect(parseResult(await invokeRoute('testWebhookEndpoint', testEndpoint, { apiKey: KEY, pathParameters: { id: ID }, body: {} })).status).toBe(202);
    // However a serializer spaces it.
    for (const text of ['{ }', '{\n}', '{\n  \n}']) {
      const event = routeEvent('testWebhookEndpoint', { apiKey: KEY, pathParameters: { id: ID }, body: {} });
      event.body = text;
      expect(parseResult(await invokeRoute('testWebhookEndpoint', testEndpoint, event)).status).toBe(202);
    }
  });

  it('answers 503 service_unavailable with Retry-After when the queue does not answer, and 500 never', async () => {
    givenKey(['webhooks:manage'], { ...storedEndpoint, status: 'enabled', disabledReason: null });
    sqs.on(SendMessageBatchCommand).rejects(Object.assign(new Error('connect ECONNREFUSED'), { name: 'TimeoutError', $metadata: {} }));

    const result = await invokeRoute('testWebhookEndpoint', testEndpoint, { apiKey: KEY, pathParameters: { id: ID } });
    const { status, body } = parseResult(result);

    expect(status).toBe(503);
    expectContractError(status, body, 'service_unavailable');
    expect(result.headers).toMatchObject({ 'Retry-After': '1' });
  });
});
