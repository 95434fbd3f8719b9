import { DynamoDBDocumentClient, GetCommand } from '@aws-sdk/lib-dynamodb';
import { mockClient } from 'aws-sdk-client-mock';
import { clearApiKeyCache } from '../../../lambdas/domain/api-keys/authenticate';
import { hashApiKey } from '../../../lambdas/domain/api-keys/api-key-secret';
import { handler as getTemplate } from '../../../lambdas/handlers/get-template';
import { handler as previewTemplate } from '../../../lambdas/handlers/preview-template';
import { keys } from '../../../lambdas/shared/table';
import { storableTemplateSchema } from '../../../lambdas/domain/templates/template';
import { templateItem } from '../../../lib/testing/send-items';
import { apiKeyItem } from '../../support/api-keys';
import { lambdaContext, parseResult, routeEvent } from '../../support/events';
import { template, TEMPLATE_ID, VERSION_ID } from '../../support/send-fixtures';

const ddb = mockClient(DynamoDBDocumentClient);
const TABLE = process.env.TABLE_NAME!;
const KEY = 'msk_test_templates_0001';
const WS = 'ws-tpl';

beforeEach(() => {
  ddb.reset();
  clearApiKeyCache();
  ddb.on(GetCommand).resolves({});
  ddb.on(GetCommand, { TableName: TABLE, Key: keys.apiKey(hashApiKey(KEY)) }).resolves({ Item: apiKeyItem(KEY, { workspaceId: WS, scopes: ['templates:read'] }) });
  ddb.on(GetCommand, { TableName: TABLE, Key: keys.template(WS, TEMPLATE_ID) }).resolves({ Item: templateItem({ workspaceId: WS, ...template }) });
  ddb.on(GetCommand, { TableName: TABLE, Key: keys.templateVersion(WS, VERSION_ID) }).resolves({
    Item: { ...keys.templateVersion(WS, VERSION_ID), templateId: TEMPLATE_ID, templateStatus: 'APPROVED', version: template.versions[0] },
  });
});

const detail = async (templateId: string) =>
  parseResult(await getTemplate(routeEvent('getTemplate', { apiKey: KEY, pathParameters: { templateId } }), lambdaContext('getTemplate')));
const preview = async (variables: unknown, versionId = VERSION_ID) =>
  parseResult(await previewTemplate(routeEvent('previewTemplate', { apiKey: KEY, pathParameters: { templateId: versionId }, body: { variables } }), lambdaContext('previewTemplate')));

describe('GET /v1/message-templates/{templateId}', () => {
  it('answers the template at top level with exactly the contract fields', async () => {
    const { status, body } = await detail(TEMPLATE_ID);
    expect(status).toBe(200);
    expect(body).toStrictEqual({
      id: TEMPLATE_ID,
      displayName: 'Order shipped',
      status: 'APPROVED',
      versions: [
        {
          id: VERSION_ID,
          version: 1,
          status: 'READY',
          variableDefinitions: [
            { name: 'name', type: 'text', required: true },
            { name: 'order', type: 'text', required: true },
          ],
          customerPreview: 'Halo {{name}}, pesanan {{order}} sudah dikirim.',
          creditCostPerSend: 2,
          createdAt: '2026-01-05T03:00:00Z',
        },
      ],
    });
  });

  // docs/api.md#conventions: times are UTC instants. A template file written in WIB was stored, and
  // answered, with its +07:00: a dashboard comparing the strings as UTC ordered them wrong.
  it('answers version times in UTC when the template was imported with another offset', async () => {
    const imported = storableTemplateSchema.parse({ ...template, versions: [{ ...template.versions[0]!, createdAt: '2026-01-01T09:00:00+07:00', readyAt: '2026-01-01T09:10:00.5+07:00' }] });
    ddb.on(GetCommand, { TableName: TABLE, Key: keys.template(WS, TEMPLATE_ID) }).resolves({ Item: templateItem({ workspaceId: WS, ...imported }) });
    const { status, body } = await detail(TEMPLATE_ID);
    expect(status).toBe(200);
    expect((body.versions as { createdAt: string; readyAt: string }[]).map(({ createdAt, readyAt }) => [createdAt, readyAt])).toEqual([['2026-01-01T02:00:00.000Z', '2026-01-01T02:10:00.500Z']]);
  });

  it('answers an unknown or foreign id with 404 and a malformed one with 422', async () => {
    expect((await detail('00000000-0000-4000-8000-000000000000')).body).toMatchObject({ error: 'not_found', message: 'Template was not found' });
    expect((await detail('nope')).status).toBe(422);
  });
});

describe('POST /v1/message-templates/{templateVersionId}/preview', () => {
  it('renders the version body with the given values', async () => {
    const { status, body } = await preview([
      { name: 'name', value: 'Budi' },
      { name: 'order', value: 'A-1' },
    ]);
    expect(status).toBe(200);
    expect(body).toStrictEqual({ templateVersionId: VERSION_ID, preview: 'Halo Budi, pesanan A-1 sudah dikirim.' });
  });

  it.each([
    [[{ name: 'name', value: 'Budi' }], 'missing_variables', 'variables: missing required variables: order'],
    [[{ name: 'name', value: 'a' }, { name: 'order', value: 'b' }, { name: 'coupon', value: 'c' }], 'validation_failed', 'variables: not defined by this template version: coupon'],
    [[{ name: 'name', value: 'a' }, { name: 'name', value: 'b' }], 'validation_failed', 'variables: "name" is given more than once'],
    [[{ name: 'name', value: 7 }, { name: 'order', value: 'b' }], 'validation_failed', 'body.variables.0.value: variable "name": value must be a string'],
    ['nope', 'validation_failed', 'body.variables: Invalid input: expected array, received string'],
  ])('answers 422 for %j naming the variable', async (variables, error, message) => {
    const { status, body } = await preview(variables);
    expect([status, body.error, body.message]).toEqual([422, error, message]);
  });

  it('allows 50 variables and rejects 51 before any lookup', async () => {
    const many = (n: number) => Array.from({ length: n }, (_, i) => ({ name: `v${i}`, value: 'x' }));
    expect((await preview(many(50))).body.message).toMatch(/^variables: not defined by this template version/);
    expect((await preview(many(51))).body.message).toBe('body.variables: at most 50 variables');
  });

  it('answers an unknown or foreign version with 404', async () => {
    expect((await preview([], '00000000-0000-4000-8000-000000000000')).body).toMatchObject({ error: 'not_found', message: 'Template version was not found' });
  });
});
