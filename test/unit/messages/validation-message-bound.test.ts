import { SQSClient } from '@aws-sdk/client-sqs';
import { DynamoDBDocumentClient, GetCommand } from '@aws-sdk/lib-dynamodb';
import { mockClient } from 'aws-sdk-client-mock';
import { clearApiKeyCache } from '../../../lambdas/domain/api-keys/authenticate';
import { hashApiKey } from '../../../lambdas/domain/api-keys/api-key-secret';
import { handler as sendMessage } from '../../../lambdas/handlers/send-message';
import { handler as previewTemplate } from '../../../lambdas/handlers/preview-template';
import { keys } from '../../../lambdas/shared/table';
import { resetContainerCaches } from '../../../lib/testing';
import { templateItem } from '../../../lib/testing/send-items';
import { apiKeyItem } from '../../support/api-keys';
import { lambdaContext, parseResult, routeEvent } from '../../support/events';
import { SEND_KEY, stubHealthySend, template, TEMPLATE_ID, validSend, VERSION_ID } from '../../support/send-fixtures';

/**
 * docs/api.md#limits: validation messages "name at most five problems and five unknown fields,
 * then 'and N more'". Unknown template variables are unknown fields too: the send and the preview
 * named every one of them at full length (a 115 000-character message, logged as well).
 */
const ddb = mockClient(DynamoDBDocumentClient);
const sqs = mockClient(SQSClient);
const PREVIEW_KEY = 'msk_test_templates_0001';

beforeEach(() => {
  ddb.reset();
  sqs.reset();
  resetContainerCaches();
  clearApiKeyCache();
  stubHealthySend(ddb, sqs);
  ddb.on(GetCommand, { TableName: process.env.TABLE_NAME!, Key: keys.apiKey(hashApiKey(PREVIEW_KEY)) }).resolves({ Item: apiKeyItem(PREVIEW_KEY, { workspaceId: 'ws-test', scopes: ['templates:read'] }) });
  ddb.on(GetCommand, { TableName: process.env.TABLE_NAME!, Key: keys.template('ws-test', TEMPLATE_ID) }).resolves({ Item: templateItem({ workspaceId: 'ws-test', ...template }) });
  ddb.on(GetCommand, { TableName: process.env.TABLE_NAME!, Key: keys.templateVersion('ws-test', VERSION_ID) }).resolves({
    Item: { ...keys.templateVersion('ws-test', VERSION_ID), templateId: TEMPLATE_ID, version: template.versions[0] },
  });
});

describe('validation messages stay bounded (docs/api.md#limits)', () => {
  it('a send with 48 unknown variables names at most five of them', async () => {
    const variables: Record<string, string> = { name: 'Budi', order: 'A-1' };
    for (let i = 0; i < 48; i++) variables[`${'x'.repeat(2400)}${i}`] = '';
    const { status, body } = parseResult(
      await sendMessage(routeEvent('sendMessage', { apiKey: SEND_KEY, body: validSend({ content: { type: 'template', templateId: TEMPLATE_ID, variables } }) }), lambdaContext('sendMessage')),
    );
    expect(status).toBe(422);
    expect(body.error).toBe('validation_failed');
    const message = String(body.message);
    expect(message.length).toBeLessThan(2_000);
    expect(message).toContain('and 43 more');
  });

  it('a preview with 48 unknown variables names at most five of them', async () => {
    const variables = [{ name: 'name', value: 'x' }, { name: 'order', value: 'x' }, ...Array.from({ length: 48 }, (_, i) => ({ name: `v${i}`, value: 'x' }))];
    const { status, body } = parseResult(
      await previewTemplate(routeEvent('previewTemplate', { apiKey: PREVIEW_KEY, pathParameters: { templateId: VERSION_ID }, body: { variables } }), lambdaContext('previewTemplate')),
    );
    expect(status).toBe(422);
    expect(String(body.message)).toContain('and 43 more');
  });
});
