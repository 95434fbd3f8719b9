import { randomUUID } from 'node:crypto';
import { SendMessageCommand, SQSClient } from '@aws-sdk/client-sqs';
import { DynamoDBDocumentClient, GetCommand, TransactWriteCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { TransactionCanceledException } from '@aws-sdk/client-dynamodb';
import { mockClient } from 'aws-sdk-client-mock';
import { conversationIdFor } from '../../../lambdas/domain/conversations/conversation-id';
import { handler } from '../../../lambdas/handlers/send-message';
import { keys } from '../../../lambdas/shared/table';
import { resetContainerCaches, workspaceItem } from '../../../lib/testing';
import { lambdaContext, parseResult, routeEvent } from '../../support/events';
import { SEND_KEY, stubHealthySend, template, TEMPLATE_ID, validSend, WORKSPACE, workspace } from '../../support/send-fixtures';
import type { Template } from '../../../lambdas/domain/templates/template';

const ddb = mockClient(DynamoDBDocumentClient);
const sqs = mockClient(SQSClient);
const TABLE = process.env.TABLE_NAME!;
const QUEUE = process.env.QUEUE_URL!;
const NOW = new Date('2026-03-10T16:59:30.000Z');

beforeEach(() => {
  ddb.reset();
  sqs.reset();
  resetContainerCaches();
  stubHealthySend(ddb, sqs);
  jest.useFakeTimers({ now: NOW, doNotFake: ['nextTick', 'setImmediate', 'queueMicrotask', 'setTimeout'] });
});
afterEach(() => jest.useRealTimers());

const send = async (body: Record<string, unknown> = validSend(), headers: Record<string, string> = {}) =>
  parseResult(await handler(routeEvent('sendMessage', { apiKey: SEND_KEY, body, headers }), lambdaContext('sendMessage')));

const transactItems = () => ddb.commandCalls(TransactWriteCommand)[0]!.args[0].input.TransactItems!;

describe('POST /v1/messages, accepted', () => {
  it('answers 202 with exactly dispatchId, status and an absolute statusUrl on the same stage', async () => {
    const { status, body, headers } = await send(validSend({ trackingTags: [' promo ', 'promo', 'nov'] }));
    expect(status).toBe(202);
    expect(Object.keys(body).sort()).toEqual(['dispatchId', 'status', 'statusUrl']);
    expect(body.status).toBe('queued');
    expect(body.statusUrl).toBe(`https://abc123.execute-api.ap-southeast-3.amazonaws.com/prod/v1/messages/${body.dispatchId as string}`);
    expect(headers.location).toBe(body.statusUrl);
  });

  it('writes dispatch, conversation message and conversation in one transaction, then one queue message', async () => {
    const { body } = await send(validSend({ trackingTags: [' promo ', 'promo', 'nov'], contactName: 'Budi' }));
    const dispatchId = body.dispatchId as string;
    const conversationId = conversationIdFor(WORKSPACE, 'whatsapp', '+6281234567890');

    expect(ddb.commandCalls(TransactWriteCommand)).toHaveLength(1);
    const [dispatchPut, messagePut, conversationUpdate, ...rest] = transactItems();
    expect(rest).toEqual([]);
    expect(dispatchPut!.Put).toMatchObject({
      TableName: TABLE,
      ConditionExpression: 'attribute_not_exists(pk)',
      Item: {
        ...keys.dispatch(dispatchId),
        entity: 'dispatch',
        workspaceId: WORKSPACE,
        to: '+6281234567890',
        status: 'queued',
        providerTemplateName: 'order_shipped',
        bodyParameters: ['Budi', 'A-1'],
        trackingTags: ['promo', 'nov'],
        creditCost: 2,
        amountRupiah: 2 * workspace.rupiahPerCredit,
        source: 'EXTERNAL_API',
        apiClient: { id: expect.any(String), name: 'test' },
      },
    });
    // Its one index entry is the pending report entry: send-check reads the conversation message (decision 115).
    expect(Object.keys(dispatchPut!.Put!.Item!).filter((name) => name.startsWith('gsi')).sort()).toEqual(['gsi4pk', 'gsi4sk']);
    // What only the send needs is written where it is read (decision 92): the text in the
    // conversation message, the contact's name on the conversation; the conversation id is derived.
    for (const name of ['renderedText', 'variables', 'contactName', 'templateVersionId', 'conversationId']) expect(dispatchPut!.Put!.Item).not.toHaveProperty(name);
    // Nor an entry in an index projecting every attribute, which each status move would rewrite (decision 100).
    expect(dispatchPut!.Put!.Item).not.toHaveProperty('gsi1pk');
    expect(messagePut!.Put!.Item).toMatchObject({ ...keys.conversationMessage(WORKSPACE, conversationId, NOW.toISOString(), dispatchId), direction: 'outbound', dispatchId, text: 'Halo Budi, pesanan A-1 sudah dikirim.' });
    expect(conversationUpdate!.Update!.Key).toEqual(keys.conversation(WORKSPACE, conversationId));
    expect(conversationUpdate!.Update!.ExpressionAttributeValues).toMatchObject({ ':name': 'Budi' });

    // Its group is the workspace: the tenant SQS fair queues keep one campaign from holding up other workspaces' messages.
    expect(sqs.commandCalls(SendMessageCommand).map((call) => call.args[0].input)).toStrictEqual([
      { QueueUrl: QUEUE, MessageBody: JSON.stringify({ dispatchId, workspaceId: WORKSPACE }), MessageGroupId: WORKSPACE },
    ]);
  });

  it('makes one transaction and one queue message per send once caches and the allowance lease are warm', async () => {
    await send();
    // The first send leased a block of 600/20 = 30 sends with one write.
    expect(ddb.commandCalls(UpdateCommand)[0]!.args[0].input.ExpressionAttributeValues).toMatchObject({ ':block': 30, ':ceiling': 570 });
    ddb.resetHistory();
    sqs.resetHistory();
    await send();
    expect(ddb.calls().map((call) => call.args[0].constructor.name)).toEqual(['TransactWriteCommand']);
    expect(sqs.calls()).toHaveLength(1);
  });
});

describe('POST /v1/messages, refused', () => {
  it('answers 429 with Retry-After until the next minute when the workspace allowance is spent, writing nothing', async () => {
    ddb.on(UpdateCommand).rejects(Object.assign(new Error('The conditional request failed'), { name: 'ConditionalCheckFailedException' }));
    const { status, body, headers } = await send();
    expect([status, body.error, headers['retry-after']]).toEqual([429, 'rate_limited', '30']);
    // A block of 30 did not fit, nor did a single send.
    expect(ddb.commandCalls(UpdateCommand).map((call) => call.args[0].input.ExpressionAttributeValues?.[':block'])).toEqual([30, 1]);
    expect(ddb.commandCalls(TransactWriteCommand)).toHaveLength(0);
    expect(sqs.calls()).toHaveLength(0);
  });

  it('answers 502 when the queue refuses: the dispatch is failed with enqueue_failed and the idempotency key released', async () => {
    sqs.on(SendMessageCommand).rejects(new Error('ServiceUnavailable'));
    const { status, body } = await send(validSend(), { 'Idempotency-Key': 'order-1' });
    expect([status, body.error]).toEqual([502, 'upstream_unavailable']);

    const [, release] = ddb.commandCalls(TransactWriteCommand);
    const dispatchId = (transactItems()[0]!.Put!.Item as { dispatchId: string }).dispatchId;
    expect(release!.args[0].input.TransactItems).toEqual([
      {
        Update: expect.objectContaining({
          Key: keys.dispatch(dispatchId),
          ConditionExpression: '#status = :queued',
          ExpressionAttributeValues: expect.objectContaining({ ':failed': 'failed', ':code': 'enqueue_failed' }),
        }),
      },
      { Delete: { TableName: TABLE, Key: keys.idempotency(WORKSPACE, 'order-1') } },
    ]);
  });

  it('answers 409 duplicate_send when the daily-send marker exists', async () => {
    ddb.on(GetCommand, { TableName: TABLE, Key: keys.workspace(WORKSPACE) }).resolves({ Item: workspaceItem({ settings: { dedupe: 'wib-day' } }) });
    ddb.on(TransactWriteCommand).rejects(
      new TransactionCanceledException({ message: 'cancelled', $metadata: {}, CancellationReasons: [{ Code: 'None' }, { Code: 'None' }, { Code: 'None' }, { Code: 'ConditionalCheckFailed' }] }),
    );
    const { status, body } = await send();
    expect([status, body.error]).toEqual([409, 'duplicate_send']);
    // 16:59:30Z is still 10 March in WIB (the day ends at 17:00Z).
    expect(transactItems()[3]!.Put!.Item).toMatchObject(keys.dailySend(WORKSPACE, '2026-03-10', '+6281234567890', TEMPLATE_ID));
    expect(sqs.calls()).toHaveLength(0);
  });

  it('answers 409 idempotency_conflict when the key was used with another body', async () => {
    ddb.on(TransactWriteCommand).rejects(
      new TransactionCanceledException({ message: 'cancelled', $metadata: {}, CancellationReasons: [{ Code: 'None' }, { Code: 'None' }, { Code: 'None' }, { Code: 'ConditionalCheckFailed' }] }),
    );
    ddb.on(GetCommand, { TableName: TABLE, Key: keys.idempotency(WORKSPACE, 'order-1'), ConsistentRead: true }).resolves({
      Item: { key: 'order-1', fingerprint: 'another-body', dispatchId: 'x', state: 'completed', response: { dispatchId: 'x', status: 'queued' }, createdAt: NOW.toISOString() },
    });
    const { status, body } = await send(validSend(), { 'Idempotency-Key': 'order-1' });
    expect([status, body.error, body.message]).toEqual([409, 'idempotency_conflict', 'This Idempotency-Key was already used with a different request body']);
  });

  it('rejects a malformed Idempotency-Key with 422', async () => {
    const { status, body } = await send(validSend(), { 'Idempotency-Key': 'has space' });
    expect([status, body.message]).toEqual([422, 'headers.idempotency-key: Idempotency-Key must be 1 to 255 visible ASCII characters']);
  });

  it('rejects an unparseable phone number, an unknown template and a template without a READY version, writing nothing', async () => {
    expect((await send(validSend({ to: '12' }))).body).toMatchObject({ error: 'validation_failed', message: 'to: "12" is not a valid phone number' });
    const unknown = await send(validSend({ content: { type: 'template', templateId: '00000000-0000-4000-8000-000000000000', variables: {} } }));
    expect([unknown.status, unknown.body.error]).toEqual([422, 'template_not_found']);
    storedTemplate({ ...template, versions: [{ ...template.versions[0]!, status: 'PENDING' }] });
    expect((await send()).body).toMatchObject({ error: 'template_not_ready', message: `content.templateId: template ${TEMPLATE_ID} has no READY version` });
    expect(ddb.commandCalls(UpdateCommand)).toHaveLength(0);
    expect(ddb.commandCalls(TransactWriteCommand)).toHaveLength(0);
  });

  it('refuses a template whose newest version has parts it cannot send, though an older one is READY (decision 143)', async () => {
    const carousel = { ...template.versions[0]!, id: randomUUID(), version: 2, status: 'UNSUPPORTED', unsupportedParts: ['CAROUSEL', 'HEADER PRODUCT'] };
    storedTemplate({ ...template, versions: [template.versions[0]!, carousel] });
    const { status, body } = await send();
    expect(status).toBe(422);
    expect(body).toStrictEqual({
      success: false,
      error: 'template_not_ready',
      message: `content.templateId: template ${TEMPLATE_ID} has parts this API cannot send (CAROUSEL, HEADER PRODUCT), so WhatsApp would refuse every message`,
      requestId: expect.any(String),
    });
    expect(ddb.commandCalls(TransactWriteCommand)).toHaveLength(0);
    expect(sqs.commandCalls(SendMessageCommand)).toHaveLength(0);

    // Once Meta holds the older content again, the newer version is SUPERSEDED and the older one sends (decision 146).
    resetContainerCaches();
    storedTemplate({ ...template, versions: [template.versions[0]!, { ...carousel, status: 'SUPERSEDED', disabledAt: '2026-03-01T00:00:00Z' }] });
    expect((await send()).status).toBe(202);
  });

  it('checks a synced version’s media link and location by their type; an imported version’s types describe only', async () => {
    const located = {
      ...template.versions[0]!,
      variableDefinitions: [...template.versions[0]!.variableDefinitions, { name: 'header_latitude', type: 'number', required: true }, { name: 'header_longitude', type: 'number', required: true }],
    };
    const variables = { name: 'Budi', order: 'A-1', header_latitude: '-6,2', header_longitude: '106.8' };
    storedTemplate({ ...template, versions: [{ ...located, components: { parameterFormat: 'POSITIONAL', header: { format: 'LOCATION', variables: ['header_latitude', 'header_longitude'] }, buttons: [] } }] });
    expect((await send(validSend({ content: { type: 'template', templateId: TEMPLATE_ID, variables } }))).body).toMatchObject({
      error: 'validation_failed',
      message: 'content.variables: header_latitude: must be a decimal number',
    });
    expect(ddb.commandCalls(TransactWriteCommand)).toHaveLength(0);

    resetContainerCaches();
    storedTemplate({ ...template, versions: [located] });
    expect((await send(validSend({ content: { type: 'template', templateId: TEMPLATE_ID, variables } }))).status).toBe(202);
  });
});

/** The send fixture's template, as the table holds it now. */
function storedTemplate(stored: Template) {
  ddb.on(GetCommand, { TableName: TABLE, Key: keys.template(WORKSPACE, TEMPLATE_ID) }).resolves({ Item: { ...keys.template(WORKSPACE, TEMPLATE_ID), ...stored } });
}
