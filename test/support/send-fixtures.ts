import { GetCommand, QueryCommand, TransactWriteCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { SendMessageCommand } from '@aws-sdk/client-sqs';
import type { AwsStub } from 'aws-sdk-client-mock';
import type { DynamoDBClientResolvedConfig } from '@aws-sdk/client-dynamodb';
import type { ServiceInputTypes, ServiceOutputTypes } from '@aws-sdk/lib-dynamodb';
import type { ServiceInputTypes as SQSInput, ServiceOutputTypes as SQSOutput, SQSClientResolvedConfig } from '@aws-sdk/client-sqs';
import { keys } from '../../lambdas/shared/table';
import { templateInputSchema, type Template } from '../../lambdas/domain/templates/template';
import { hashApiKey } from '../../lambdas/domain/api-keys/api-key-secret';
import { apiKeyItem } from './api-keys';
import { sampleTemplate, templateItem, workspaceItem } from '../../lib/testing/send-items';

export const WORKSPACE = 'ws-test';
export const SEND_KEY = 'msk_test_sender_000000001';
export const TEMPLATE_ID: string = sampleTemplate.id;
export const VERSION_ID: string = sampleTemplate.versions[0].id;

/** The kit's template (lib/testing), as the domain reads it. */
export const template: Template = templateInputSchema.parse(sampleTemplate);

/** A template defining the contract's maximum of 50 variables, all optional. */
export const WIDE_TEMPLATE_ID = '7b0c5c3e-0000-4000-8000-000000000050';
/** A value for each of the wide template's 50 variables: each is in its body, so WhatsApp needs every one (decision 169). */
export const wideVariables: Record<string, string> = Object.fromEntries(Array.from({ length: 50 }, (_, i) => [`v${i}`, 'x']));
export const wideTemplate: Template = {
  ...template,
  id: WIDE_TEMPLATE_ID,
  versions: [
    {
      ...template.versions[0]!,
      id: '7b0c5c3e-0000-4000-8000-0000000005a1',
      body: Array.from({ length: 50 }, (_, i) => `{{v${i}}}`).join(' '),
      variableDefinitions: Array.from({ length: 50 }, (_, i) => ({ name: `v${i}`, type: 'text', required: false })),
    },
  ],
};

export const workspace = {
  id: WORKSPACE,
  name: 'Test',
  rupiahPerCredit: 150,
  settings: { sendsPerMinute: 600, dedupe: 'none', provider: 'sandbox' },
  createdAt: '2026-01-01T00:00:00.000Z',
  updatedAt: '2026-01-01T00:00:00.000Z',
};

/** A valid send request; override parts per test. */
export const validSend = (overrides: Record<string, unknown> = {}) => ({
  channel: 'whatsapp',
  to: '081234567890',
  content: { type: 'template', templateId: TEMPLATE_ID, variables: { name: 'Budi', order: 'A-1' } },
  ...overrides,
});

/** DynamoDB and SQS answering as a healthy table and queue would for a send. */
export function stubHealthySend(ddb: AwsStub<ServiceInputTypes, ServiceOutputTypes, DynamoDBClientResolvedConfig>, sqs: AwsStub<SQSInput, SQSOutput, SQSClientResolvedConfig>, table = process.env.TABLE_NAME!) {
  ddb.on(GetCommand).resolves({});
  ddb.on(GetCommand, { TableName: table, Key: keys.apiKey(hashApiKey(SEND_KEY)) }).resolves({ Item: apiKeyItem(SEND_KEY, { workspaceId: WORKSPACE }) });
  ddb.on(GetCommand, { TableName: table, Key: keys.template(WORKSPACE, TEMPLATE_ID) }).resolves({ Item: templateItem({ workspaceId: WORKSPACE, ...template }) });
  ddb.on(GetCommand, { TableName: table, Key: keys.template(WORKSPACE, WIDE_TEMPLATE_ID) }).resolves({ Item: templateItem({ workspaceId: WORKSPACE, ...wideTemplate }) });
  ddb.on(GetCommand, { TableName: table, Key: keys.workspace(WORKSPACE) }).resolves({ Item: workspaceItem({ id: WORKSPACE, name: workspace.name }) });
  ddb.on(QueryCommand).resolves({ Items: [] });
  ddb.on(UpdateCommand).resolves({});
  ddb.on(TransactWriteCommand).resolves({});
  sqs.on(SendMessageCommand).resolves({ MessageId: 'm-1' });
}
