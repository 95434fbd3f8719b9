import { TransactionConflictException } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient, GetCommand, QueryCommand, TransactWriteCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { mockClient } from 'aws-sdk-client-mock';
import { draftDispatch } from '../../../lambdas/domain/messages/dispatch';
import { dispatchItem } from '../../../lambdas/domain/messages/dispatch-repository';
import { handler as receive } from '../../../lambdas/handlers/whatsapp-webhook';
import { itemsByKey, lambdaContext, numberOwnerItem, parseResult, resetContainerCaches, routeEvent, signWhatsAppBody, whatsAppStatusBody, workspaceItem } from '../../../lib/testing';
import { template } from '../../support/send-fixtures';

/**
 * Decision 193: a WhatsApp POST whose status item finds its dispatch held by another transaction
 * (its send's, a release's) past the request's conflict deadline answers 503 with Retry-After, as
 * the docs say, so Meta retries it: not a 500 logged as our bug.
 */
const ddb = mockClient(DynamoDBDocumentClient);
const workspace = workspaceItem();
const now = new Date();
const dispatch = {
  ...draftDispatch({ workspaceId: workspace.id, apiClient: { id: 'k', name: 'k' }, to: '+6281234567890', variables: { name: 'Budi', order: 'A-1' }, tagIds: [], trackingTags: [], now }, template, template.versions[0]!, { rupiahPerCredit: 150 }),
  status: 'sent' as const,
  sentAt: now.toISOString(),
  providerMessageId: 'wamid.skeptic1',
};

beforeEach(() => {
  ddb.reset();
  resetContainerCaches();
  ddb.on(GetCommand).callsFake(itemsByKey([workspace, numberOwnerItem(workspace), dispatchItem(dispatch)]));
  ddb.on(QueryCommand).resolves({ Items: [] });
  ddb.on(TransactWriteCommand).resolves({});
  ddb.on(UpdateCommand).resolves({});
  // The dispatch is held by a transaction in flight for the whole request (its send's, a release's).
  ddb.on(UpdateCommand, { Key: { pk: `DSP#${dispatch.dispatchId}` } }).rejects(new TransactionConflictException({ message: 'Transaction is ongoing for the item', $metadata: {} }));
});

describe('a WhatsApp status whose dispatch stays held', () => {
  it('a WhatsApp status POST whose dispatch stays held past the request’s conflict deadline answers 503 with Retry-After, not 500', async () => {
  const body = whatsAppStatusBody(workspace, [{ id: dispatch.providerMessageId, status: 'delivered', timestamp: String(Math.floor(now.getTime() / 1000)), biz_opaque_callback_data: dispatch.dispatchId }]);
  // 2.5 s left in the function: the request's conflict deadline is 1.5 s away.
  const answer = parseResult(await receive(routeEvent('whatsappWebhook', { body, headers: { 'X-Hub-Signature-256': signWhatsAppBody(body) } }), lambdaContext('whatsappWebhook', 2_500)));
  expect(ddb.commandCalls(UpdateCommand, { Key: { pk: `DSP#${dispatch.dispatchId}` } }).length).toBeGreaterThan(1);
  expect({ status: answer.status, error: answer.body.error, retryAfter: answer.headers['retry-after'] }).toEqual({ status: 503, error: 'service_unavailable', retryAfter: '1' });
});
});
