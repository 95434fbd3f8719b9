import { ConditionalCheckFailedException, TransactionCanceledException } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient, GetCommand, PutCommand, QueryCommand, TransactWriteCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { mockClient } from 'aws-sdk-client-mock';
import { handler as receive } from '../../../lambdas/handlers/whatsapp-webhook';
import { signWebhookBody } from '../../../lambdas/domain/providers/whatsapp-webhook';
import { itemsByKey, numberOwnerItem, resetContainerCaches, sendingNumber, workspaceItem } from '../../../lib/testing';
import { lambdaContext, parseResult, routeEvent } from '../../support/events';
import { captureLogLines } from '../../support/log-lines';

/**
 * A customer's phone number stays out of the functions' logs (decision 38; the runbook's lines name
 * dispatches, workspaces and business numbers, never a customer's). A marketing opt-out whose
 * transaction DynamoDB cancels for a conflict (a `user_preferences` stop and a `131050` failure of
 * the same customer at once, or Meta's retry of a POST still in flight) is a 503 Meta posts again,
 * logged as a dependency that did not answer, not an `Unhandled error` quoting the number.
 */
const ddb = mockClient(DynamoDBDocumentClient);
const CUSTOMER = '6281299887766';

beforeEach(() => {
  ddb.reset();
  resetContainerCaches();
});

it('a user_preferences stop whose opt-out transaction DynamoDB cancels for a conflict answers 503 and logs no customer number', async () => {
  const workspace = workspaceItem({ settings: { whatsappPhoneNumberId: '106540352242922' } });
  ddb.on(GetCommand).callsFake(itemsByKey([workspace, numberOwnerItem(workspace)]));
  ddb.on(QueryCommand).resolves({ Items: [] });
  ddb.on(PutCommand).resolves({});
  ddb.on(UpdateCommand).resolves({});
  // The number has no opt-out: DynamoDB refuses the update that would move a stored one's latest stop (decision 234).
  ddb.on(UpdateCommand, { Key: { sk: `OPTOUT#+${CUSTOMER}` } }, false).rejects(new ConditionalCheckFailedException({ message: 'The conditional request failed', $metadata: { httpStatusCode: 400 } }));
  // DynamoDB's answer to a transaction touching an item another transaction is writing.
  ddb.on(TransactWriteCommand).rejects(
    new TransactionCanceledException({
      message: 'Transaction cancelled, please refer cancellation reasons for specific reasons [TransactionConflict, None]',
      $metadata: { httpStatusCode: 400 },
      CancellationReasons: [{ Code: 'TransactionConflict', Message: 'Transaction is ongoing for the item' }, { Code: 'None' }],
    }),
  );
  // Meta's user_preferences webhook (WhatsApp Cloud API, "user_preferences" webhook reference).
  const raw = JSON.stringify({
    object: 'whatsapp_business_account',
    entry: [
      {
        id: '102290129340398',
        changes: [
          {
            field: 'user_preferences',
            value: {
              messaging_product: 'whatsapp',
              metadata: { display_phone_number: '15550783881', phone_number_id: sendingNumber(workspace) },
              contacts: [{ wa_id: CUSTOMER, profile: { name: 'Budi' } }],
              user_preferences: [{ wa_id: CUSTOMER, detail: 'User requested to stop marketing messages', category: 'marketing_messages', value: 'stop', timestamp: 1767225600 }],
            },
          },
        ],
      },
    ],
  });

  const logs = captureLogLines();
  const result = parseResult(
    await receive(
      routeEvent('whatsappWebhook', { body: raw, headers: { 'Content-Type': 'application/json', 'X-Hub-Signature-256': signWebhookBody(raw, 'test-app-secret') } }),
      lambdaContext('whatsappWebhook'),
    ).finally(logs.restore),
  );

  // Not written: Meta is asked to post it again.
  expect(result.status).toBe(503);
  expect(ddb.commandCalls(TransactWriteCommand).length).toBeGreaterThan(0);
  expect(logs.lines.filter((line) => line.level === 'ERROR').map((line) => line.message)).toEqual([]);
  expect(logs.lines.map((line) => line.message)).toContain('Dependency unavailable');
  const leaking = logs.lines.filter((line) => JSON.stringify(line).includes(CUSTOMER));
  expect(leaking.map((line) => `${String(line.level)} ${String(line.message)}: ${JSON.stringify(line.error ?? '')}`)).toEqual([]);
});
