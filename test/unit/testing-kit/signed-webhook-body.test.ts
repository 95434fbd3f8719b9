import { DynamoDBDocumentClient, GetCommand, TransactWriteCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { mockClient } from 'aws-sdk-client-mock';
import { handler as whatsappWebhook } from '../../../lambdas/handlers/whatsapp-webhook';
import { invokeRoute, itemsByKey, numberOwnerItem, parseResult, resetContainerCaches, routeEvent, signWhatsAppBody, whatsAppStatusBody, workspaceItem } from '../../../lib/testing';

/**
 * README, the kit's table: `whatsAppStatusBody` and `signWhatsAppBody` — "Pass the signed string
 * itself as the event's body". WhatsApp posts it as JSON, the only body its route takes: the
 * event a string body makes must say so, as API Gateway's would.
 */
const ddb = mockClient(DynamoDBDocumentClient);
const workspace = workspaceItem();

beforeEach(() => {
  ddb.reset();
  resetContainerCaches();
  ddb.on(GetCommand).callsFake(itemsByKey([workspace, numberOwnerItem(workspace)]));
  ddb.on(UpdateCommand).resolves({});
  ddb.on(TransactWriteCommand).resolves({});
});

const statusBody = () => whatsAppStatusBody(workspace, [{ id: 'wamid.HBgLNjI4MTIzNDU2Nzg5MBUCABEYEjQ', status: 'delivered', timestamp: String(Math.floor(Date.now() / 1000)) }]);

describe('a signed WhatsApp body passed as the README says', () => {
  it('is sent with the Content-Type of the one encoding its route takes, unless the test names another', () => {
    const body = statusBody();
    expect(routeEvent('whatsappWebhook', { body, headers: { 'X-Hub-Signature-256': signWhatsAppBody(body) } }).headers).toMatchObject({ 'Content-Type': 'application/json' });
    expect(routeEvent('whatsappWebhook', { body, headers: { 'content-type': 'text/plain' } }).headers).toMatchObject({ 'content-type': 'text/plain' });
    expect(routeEvent('whatsappWebhook', { body, headers: { 'content-type': 'text/plain' } }).headers).not.toHaveProperty('Content-Type');
  });

  it('is answered 200, the status applied', async () => {
    const body = statusBody();

    const answer = parseResult(await invokeRoute('whatsappWebhook', whatsappWebhook, { body, headers: { 'X-Hub-Signature-256': signWhatsAppBody(body) } }));

    expect(answer).toMatchObject({ status: 200, body: { success: true } });
  });
});
