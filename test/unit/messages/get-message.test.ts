import { DynamoDBDocumentClient, GetCommand } from '@aws-sdk/lib-dynamodb';
import { mockClient } from 'aws-sdk-client-mock';
import { clearApiKeyCache } from '../../../lambdas/domain/api-keys/authenticate';
import { hashApiKey } from '../../../lambdas/domain/api-keys/api-key-secret';
import { handler } from '../../../lambdas/handlers/get-message';
import { keys } from '../../../lambdas/shared/table';
import { apiKeyItem } from '../../support/api-keys';
import { lambdaContext, parseResult, routeEvent } from '../../support/events';

const ddb = mockClient(DynamoDBDocumentClient);
const TABLE = process.env.TABLE_NAME!;
const KEY = 'msk_test_reader_00000001';
const DISPATCH_ID = '3f2b0c1e-5d6a-4b7c-8d9e-0f1a2b3c4d5e';
// An item as stored before decision 92 (with the send's variables, text, version and conversation id): it still reads.
const stored = {
  ...keys.dispatch(DISPATCH_ID),
  entity: 'dispatch',
  dispatchId: DISPATCH_ID,
  workspaceId: 'ws-reader',
  channel: 'whatsapp',
  to: '+6281234567890',
  templateId: '7b0c5c3e-0000-4000-8000-000000000001',
  templateName: 'Order shipped',
  templateVersionId: '7b0c5c3e-0000-4000-8000-0000000000a1',
  providerTemplateName: 'order_shipped',
  language: 'id',
  variables: {},
  bodyParameters: [],
  tagIds: [],
  trackingTags: ['promo'],
  source: 'EXTERNAL_API',
  apiClient: null,
  status: 'queued',
  creditCost: 1,
  amountRupiah: 150,
  conversationId: '9a1b2c3d-0000-8000-8000-000000000001',
  renderedText: 'Halo',
  createdAt: '2026-03-10T01:00:00.000Z',
  updatedAt: '2026-03-10T01:00:00.000Z',
  sentAt: null,
  deliveredAt: null,
  readAt: null,
  pricing: null,
  failureCode: null,
  sequence: 3,
};
const read = async (dispatchId: string) =>
  parseResult(await handler(routeEvent('getMessage', { apiKey: KEY, pathParameters: { dispatchId } }), lambdaContext('getMessage')));

beforeEach(() => {
  ddb.reset();
  clearApiKeyCache();
  ddb.on(GetCommand).resolves({});
  ddb.on(GetCommand, { TableName: TABLE, Key: keys.apiKey(hashApiKey(KEY)) }).resolves({ Item: apiKeyItem(KEY, { workspaceId: 'ws-reader', scopes: ['messages:read'] }) });
  ddb.on(GetCommand, { TableName: TABLE, Key: keys.dispatch(DISPATCH_ID) }).resolves({ Item: stored });
});

describe('GET /v1/messages/{dispatchId}', () => {
  it('answers the status and the fields docs/api.md#message-status lists, nulls included', async () => {
    const { status, body } = await read(DISPATCH_ID);
    expect(status).toBe(200);
    expect(body).toStrictEqual({
      dispatchId: DISPATCH_ID,
      status: 'queued',
      channel: 'whatsapp',
      to: '+6281234567890',
      templateId: '7b0c5c3e-0000-4000-8000-000000000001',
      trackingTags: ['promo'],
      createdAt: '2026-03-10T01:00:00.000Z',
      updatedAt: '2026-03-10T01:00:00.000Z',
      sentAt: null,
      deliveredAt: null,
      readAt: null,
      pricing: null,
      failureCode: null,
      sequence: 3,
    });
  });

  it('reads only what its body shows, and the owning workspace: the rest of the item is neither sent nor parsed', async () => {
    const { body } = await read(DISPATCH_ID);
    const [get] = ddb.commandCalls(GetCommand, { Key: keys.dispatch(DISPATCH_ID) });
    const { ProjectionExpression, ExpressionAttributeNames } = get!.args[0].input;
    expect(ProjectionExpression!.split(', ').map((name) => ExpressionAttributeNames![name]).sort()).toEqual([...Object.keys(body), 'workspaceId'].sort());
  });

  it('answers sequence 0 for a dispatch stored before the field existed: the next change makes it 1', async () => {
    const before: Record<string, unknown> = { ...stored };
    delete before.sequence;
    ddb.on(GetCommand, { TableName: TABLE, Key: keys.dispatch(DISPATCH_ID) }).resolves({ Item: before });
    const { body } = await read(DISPATCH_ID);
    expect(body.sequence).toBe(0);
  });

  it('answers another workspace’s dispatch exactly as a missing one: 404 not_found', async () => {
    ddb.on(GetCommand, { TableName: TABLE, Key: keys.dispatch(DISPATCH_ID) }).resolves({ Item: { ...stored, workspaceId: 'ws-other' } });
    const foreign = await read(DISPATCH_ID);
    const missing = await read('00000000-0000-4000-8000-000000000000');
    expect(foreign.status).toBe(404);
    expect({ ...foreign.body, requestId: undefined }).toEqual({ ...missing.body, requestId: undefined });
    expect(foreign.body).toMatchObject({ error: 'not_found', message: 'Message was not found' });
  });

  it('answers a malformed id with 422 without reading the table', async () => {
    const { status, body } = await read('not-a-uuid');
    expect([status, body.message]).toEqual([422, 'path.dispatchId: must be a UUID']);
    expect(ddb.commandCalls(GetCommand, { Key: keys.dispatch('not-a-uuid') })).toHaveLength(0);
  });
});
