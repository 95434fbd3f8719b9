import { randomUUID } from 'node:crypto';
import { QueryCommand } from '@aws-sdk/lib-dynamodb';
import { saveApiKey } from '../../lambdas/domain/api-keys/api-key-repository';
import { generateApiKey } from '../../lambdas/domain/api-keys/api-key-secret';
import { getWebhookEndpoint, listWebhookEndpoints } from '../../lambdas/domain/webhooks/webhook-endpoint-repository';
import { WEBHOOK_ENDPOINTS_PER_WORKSPACE } from '../../lambdas/domain/webhooks/webhook-endpoint';
import { saveWorkspace } from '../../lambdas/domain/workspaces/workspace-repository';
import { IDEMPOTENCY_TTL_SECONDS } from '../../lambdas/shared/idempotency-key';
import { keys } from '../../lambdas/shared/table';
import type { APIGatewayProxyResult } from 'aws-lambda';
import { saveTemplate } from '../../lambdas/domain/templates/template-repository';
import { invokeRoute, lambdaContext, parseResult, routeEvent, type RouteHandler } from '../support/events';
import { template, TEMPLATE_ID } from '../support/send-fixtures';
import { useTableAndQueues } from '../support/sqs';

/**
 * An `Idempotency-Key` on creating a webhook endpoint and on rotating its secret (docs/api.md#idempotency,
 * decision 197), through the real handlers against DynamoDB Local. Without it, a client's retry of a
 * create whose answer was lost made a second endpoint, and a retry of a rotation still in flight
 * rotated twice, leaving live a secret the caller never saw.
 */
const env = useTableAndQueues();
const h: Record<string, RouteHandler> = {};

beforeAll(async () => {
  process.env.QUEUE_URL = env.queues.queueUrl;
  h.create = ((await import('../../lambdas/handlers/create-webhook-endpoint')) as { handler: RouteHandler }).handler;
  h.rotate = ((await import('../../lambdas/handlers/rotate-webhook-secret')) as { handler: RouteHandler }).handler;
  h.send = ((await import('../../lambdas/handlers/send-message')) as { handler: RouteHandler }).handler;
});

const URL_ = 'https://93.184.215.14/hooks';

async function workspace() {
  const ws = `ws-whidem-${randomUUID().slice(0, 8)}`;
  const key = generateApiKey();
  await saveWorkspace({ id: ws, name: ws, rupiahPerCredit: 150, settings: {} }, new Date(), env.table);
  await saveApiKey(key, { workspaceId: ws, name: 'ops', scopes: ['webhooks:manage', 'messages:send'] }, new Date(), env.table);
  return { ws, key };
}

const create = async (apiKey: string, body: Record<string, unknown>, idempotencyKey?: string) =>
  parseResult(await invokeRoute('createWebhookEndpoint', h.create!, { apiKey, body, headers: idempotencyKey ? { 'Idempotency-Key': idempotencyKey } : {} }));
const rotate = async (apiKey: string, id: string, body: Record<string, unknown>, idempotencyKey?: string) =>
  parseResult(await invokeRoute('rotateWebhookSecret', h.rotate!, { apiKey, pathParameters: { id }, body, headers: idempotencyKey ? { 'Idempotency-Key': idempotencyKey } : {} }));

/** What the key's record holds in the table. */
async function keyRecords(ws: string, key: string) {
  const { Items } = await env.table.db.send(new QueryCommand({ TableName: env.table.tableName, KeyConditionExpression: 'pk = :pk', ExpressionAttributeValues: { ':pk': keys.endpointIdempotency(ws, key).pk } }));
  return Items ?? [];
}

describe('Idempotency-Key on POST /v1/webhook-endpoints', () => {
  it('a repeat gets the first answer, secret included, with Idempotent-Replayed, and makes no second endpoint', async () => {
    const { ws, key } = await workspace();
    const first = await create(key, { url: URL_, events: ['message.received', 'message.status.updated'] }, 'create-1');
    expect(first.status).toBe(201);
    expect(first.headers['idempotent-replayed']).toBeUndefined();

    // The same request written otherwise: events in another order, repeated.
    const again = await create(key, { url: URL_, events: ['message.status.updated', 'message.received', 'message.received'] }, 'create-1');
    expect([again.status, again.headers['idempotent-replayed']]).toEqual([201, 'true']);
    expect(again.body).toEqual(first.body);
    expect(await listWebhookEndpoints(ws, env.table)).toHaveLength(1);

    const [record] = await keyRecords(ws, 'create-1');
    expect(record).toMatchObject({ entity: 'endpointIdempotencyRecord', workspaceId: ws, response: first.body });
    expect(record!.ttl).toBeGreaterThanOrEqual(Math.floor(Date.now() / 1000) + IDEMPOTENCY_TTL_SECONDS - 60);
  });

  it('two creates with one key at once make one endpoint, and both answer it', async () => {
    const { ws, key } = await workspace();
    const answers = await Promise.all([1, 2].map(() => create(key, { url: URL_ }, 'create-at-once')));
    expect(answers.map((answer) => answer.status)).toEqual([201, 201]);
    expect(answers[1]!.body).toEqual(answers[0]!.body);
    expect(answers.filter((answer) => answer.headers['idempotent-replayed'] === 'true')).toHaveLength(1);
    expect(await listWebhookEndpoints(ws, env.table)).toHaveLength(1);
  });

  it('the key with another request is 409 idempotency_conflict, writing nothing; a request’s own error answers first', async () => {
    const { ws, key } = await workspace();
    expect((await create(key, { url: URL_ }, 'create-2')).status).toBe(201);

    const other = await create(key, { url: URL_, description: 'CRM' }, 'create-2');
    expect(other.status).toBe(409);
    expect(other.body).toMatchObject({ success: false, error: 'idempotency_conflict', message: 'This Idempotency-Key was already used with a different request' });
    const refusedUrl = await create(key, { url: 'https://10.0.0.7/hooks' }, 'create-2');
    expect([refusedUrl.status, refusedUrl.body.error]).toEqual([422, 'validation_failed']);
    expect(await listWebhookEndpoints(ws, env.table)).toHaveLength(1);
  });

  it('a repeat at the workspace’s limit still gets its answer, not 409 webhook_endpoint_limit_reached', async () => {
    const { key } = await workspace();
    const first = await create(key, { url: URL_ }, 'create-last');
    for (let i = 1; i < WEBHOOK_ENDPOINTS_PER_WORKSPACE; i++) expect((await create(key, { url: URL_ })).status).toBe(201);
    expect((await create(key, { url: URL_ })).body.error).toBe('webhook_endpoint_limit_reached');

    const again = await create(key, { url: URL_ }, 'create-last');
    expect([again.status, again.headers['idempotent-replayed'], again.body]).toEqual([201, 'true', first.body]);
  });

  it('a key a send used is the send’s alone: an endpoint request with it is a first request', async () => {
    const { ws, key } = await workspace();
    await saveTemplate(ws, template, env.table);
    const sent = await invokeRoute('sendMessage', h.send!, {
      apiKey: key,
      body: { channel: 'whatsapp', to: '081234567890', content: { type: 'template', templateId: TEMPLATE_ID, variables: { name: 'Sari', order: 'A-1' } } },
      headers: { 'Idempotency-Key': 'shared-key' },
    });
    expect(sent.statusCode).toBe(202);
    const created = await create(key, { url: URL_ }, 'shared-key');
    expect([created.status, created.headers['idempotent-replayed']]).toEqual([201, undefined]);
  });

  it('refuses the header sent twice, as a send does', async () => {
    const { ws, key } = await workspace();
    const event = routeEvent('createWebhookEndpoint', { apiKey: key, body: { url: URL_ }, headers: { 'Idempotency-Key': 'b' } });
    event.multiValueHeaders['Idempotency-Key'] = ['a', 'b'];
    const answer = parseResult((await h.create!(event, lambdaContext('createWebhookEndpoint') as never)) as APIGatewayProxyResult);
    expect([answer.status, answer.body.error, answer.body.message]).toEqual([422, 'validation_failed', 'headers.idempotency-key: send it once, not 2 times']);
    expect(await listWebhookEndpoints(ws, env.table)).toHaveLength(0);
  });
});

describe('Idempotency-Key on POST /v1/webhook-endpoints/{id}/rotate-secret', () => {
  it('a retry while the first rotation is in flight rotates once: both answer the one new secret, and no unseen secret signs', async () => {
    const { ws, key } = await workspace();
    const { body: endpoint } = await create(key, { url: URL_ });
    const answers = await Promise.all([1, 2].map(() => rotate(key, endpoint.id as string, { overlapSeconds: 3600 }, 'rotate-1')));

    expect(answers.map((answer) => answer.status)).toEqual([200, 200]);
    expect(answers[1]!.body).toEqual(answers[0]!.body);
    const stored = await getWebhookEndpoint(ws, endpoint.id as string, env.table);
    expect(stored!.secrets.map((entry) => entry.secret)).toEqual([answers[0]!.body.secret, endpoint.secret]);
  });

  it('a repeat later replays the answer with Idempotent-Replayed and rotates nothing, even after another rotation', async () => {
    const { ws, key } = await workspace();
    const { body: endpoint } = await create(key, { url: URL_ });
    const id = endpoint.id as string;
    const first = await rotate(key, id, {}, 'rotate-2');
    expect([first.status, first.headers['idempotent-replayed']]).toEqual([200, undefined]);
    const other = await rotate(key, id, { overlapSeconds: 0 });

    const again = await rotate(key, id, {}, 'rotate-2');
    expect([again.status, again.headers['idempotent-replayed'], again.body]).toEqual([200, 'true', first.body]);
    expect((await getWebhookEndpoint(ws, id, env.table))!.secrets[0].secret).toBe(other.body.secret);
  });

  it('the key with another overlap or another endpoint is 409; an unknown or foreign endpoint stays a plain 404', async () => {
    const { key } = await workspace();
    const neighbour = await workspace();
    const { body: endpoint } = await create(key, { url: URL_ });
    const { body: second } = await create(key, { url: URL_ });
    const { body: foreign } = await create(neighbour.key, { url: URL_ });
    expect((await rotate(key, endpoint.id as string, { overlapSeconds: 60 }, 'rotate-3')).status).toBe(200);

    for (const answer of [await rotate(key, endpoint.id as string, { overlapSeconds: 120 }, 'rotate-3'), await rotate(key, second.id as string, { overlapSeconds: 60 }, 'rotate-3')]) {
      expect([answer.status, answer.body.error]).toEqual([409, 'idempotency_conflict']);
    }
    for (const id of [foreign.id as string, 'whe_00000000000000000000000000000000']) {
      const answer = await rotate(key, id, { overlapSeconds: 60 }, 'rotate-3');
      expect([answer.status, answer.body.error]).toEqual([404, 'not_found']);
    }
    // Another workspace's own key of the same name is its own.
    expect((await rotate(neighbour.key, foreign.id as string, { overlapSeconds: 60 }, 'rotate-3')).headers['idempotent-replayed']).toBeUndefined();
  });
});
