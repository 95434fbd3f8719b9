import { SQSClient } from '@aws-sdk/client-sqs';
import { DynamoDBDocumentClient, GetCommand, TransactWriteCommand } from '@aws-sdk/lib-dynamodb';
import { mockClient } from 'aws-sdk-client-mock';
import { handler } from '../../../lambdas/handlers/send-message';
import { keys } from '../../../lambdas/shared/table';
import { resetContainerCaches, templateItem } from '../../../lib/testing';
import { encodeBody, encodings } from '../../support/encodings';
import { lambdaContext, parseResult, routeEvent } from '../../support/events';
import { SEND_KEY, stubHealthySend, template, WORKSPACE } from '../../support/send-fixtures';

/**
 * docs/api.md#templates-from-whatsapp: a body's positional `{{1}}`, `{{2}}` are the variables `1`,
 * `2`. docs/api.md#form-encodings: a form carries the same fields and rules as JSON, in bracket
 * notation (`content[variables][1]=Budi`): a number there names a variable, as in JSON.
 */
const ddb = mockClient(DynamoDBDocumentClient);
const sqs = mockClient(SQSClient);
const POSITIONAL_ID = '7b0c5c3e-0000-4000-8000-0000000000b1';
const positional = {
  ...template,
  id: POSITIONAL_ID,
  versions: [
    {
      ...template.versions[0]!,
      id: '7b0c5c3e-0000-4000-8000-0000000000b2',
      body: 'Halo {{1}}, pesanan {{2}} sudah dikirim.',
      variableDefinitions: [
        { name: '1', type: 'text' as const, required: true },
        { name: '2', type: 'text' as const, required: true },
      ],
    },
  ],
};

beforeEach(() => {
  ddb.reset();
  sqs.reset();
  resetContainerCaches();
  stubHealthySend(ddb, sqs);
  ddb.on(GetCommand, { TableName: process.env.TABLE_NAME!, Key: keys.template(WORKSPACE, POSITIONAL_ID) }).resolves({ Item: templateItem({ workspaceId: WORKSPACE, ...positional }) });
});

const request = { channel: 'whatsapp', to: '081234567890', content: { type: 'template', templateId: POSITIONAL_ID, variables: { '1': 'Budi', '2': 'A-1' } } };

describe('POST /v1/messages with a positional ({{1}}, {{2}}) template', () => {
  it.each(encodings)('accepts the variables `1` and `2` as %s, and queues them in their places', async (encoding) => {
    const encoded = encodeBody(request, encoding);
    const { status, body } = parseResult(await handler(routeEvent('sendMessage', { apiKey: SEND_KEY, body: encoded.body, headers: encoded.headers }), lambdaContext('sendMessage')));
    expect([status, body.error, body.message]).toEqual([202, undefined, undefined]);
    const writes = ddb.commandCalls(TransactWriteCommand).flatMap((call) => call.args[0].input.TransactItems ?? []);
    const dispatch = writes.map((write) => write.Put?.Item).find((item) => item?.entity === 'dispatch');
    expect(dispatch?.bodyParameters).toEqual(['Budi', 'A-1']);
  });
});
