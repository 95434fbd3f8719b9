import { DynamoDBDocumentClient, GetCommand, QueryCommand } from '@aws-sdk/lib-dynamodb';
import { mockClient } from 'aws-sdk-client-mock';
import { hashApiKey } from '../../../lambdas/domain/api-keys/api-key-secret';
import { handler } from '../../../lambdas/handlers/delivery-status';
import { keys } from '../../../lambdas/shared/table';
import { apiKeyItem } from '../../support/api-keys';
import { resetContainerCaches } from '../../../lib/testing';
import { invokeRoute, parseResult } from '../../support/events';

/**
 * The contract bounds `phones` to 1..500 items and nothing else: "a value that is not a phone
 * number has no events", however long. It was refused 422 past 64 characters.
 */
const ddb = mockClient(DynamoDBDocumentClient);
const KEY = 'msk_test_delivery_status_01';

beforeEach(() => {
  ddb.reset();
  resetContainerCaches();
  ddb.on(GetCommand, { TableName: process.env.TABLE_NAME!, Key: keys.apiKey(hashApiKey(KEY)) }).resolves({ Item: apiKeyItem(KEY, { workspaceId: 'ws-1', scopes: ['messages:read'] }) });
  ddb.on(QueryCommand).resolves({ Items: [] });
});

it('answers a long value that is no phone number with no events, echoed as given, and queries nothing for it', async () => {
  const long = '1'.repeat(65);
  const { status, body } = parseResult(await invokeRoute('deliveryStatus', handler, { apiKey: KEY, body: { phones: [long, '081234567890'], startDate: '2026-11-01', endDate: '2026-11-30' } }));
  expect(status).toBe(200);
  expect(body).toEqual({ items: [{ phone: long, events: [] }, { phone: '081234567890', events: [] }] });
  // The one number's two partitions (its events, and those written before decision 101).
  expect(ddb.commandCalls(QueryCommand)).toHaveLength(2);
});
