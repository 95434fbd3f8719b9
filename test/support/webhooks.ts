import { signWebhookBody, type WebhookPayload } from '../../lambdas/domain/providers/whatsapp-webhook';
import { newWebhookSecret } from '../../lambdas/domain/webhooks/webhook-endpoint';
import { pathOf, routes } from '../../lambdas/routes';
import { keys } from '../../lambdas/shared/table';
import { contractFetch } from './openapi-contract';

/** Meta's webhook envelope around one change of one field, from the business account `accountId` when given. */
export const whatsAppEnvelope = (field: string, value: Record<string, unknown>, accountId?: string): WebhookPayload => ({
  object: 'whatsapp_business_account',
  entry: [{ ...(accountId ? { id: accountId } : {}), changes: [{ field, value }] }],
});

/** A customer's text message as WhatsApp delivers it to our webhook. */
export function inboundTextWebhook(message: { phoneNumberId: string; from: string; name: string; id: string; text: string; at?: Date }): WebhookPayload {
  return whatsAppEnvelope('messages', {
    metadata: { phone_number_id: message.phoneNumberId },
    contacts: [{ wa_id: message.from, profile: { name: message.name } }],
    messages: [{ from: message.from, id: message.id, timestamp: String(Math.floor((message.at ?? new Date()).getTime() / 1000)), type: 'text', text: { body: message.text } }],
  });
}

/** POSTs a webhook body to the runtime, signed with the test app secret unless told otherwise; the answer is checked against the document. */
export function postSignedWebhook(baseUrl: string, payload: WebhookPayload | string, appSecret = process.env.WHATSAPP_APP_SECRET!) {
  const body = typeof payload === 'string' ? payload : JSON.stringify(payload);
  return contractFetch(`${baseUrl}${pathOf(routes.whatsappWebhook)}`, { method: 'POST', headers: { 'content-type': 'application/json', 'x-hub-signature-256': signWebhookBody(body, appSecret) }, body });
}

/** A webhook endpoint as the table stores it: enabled, for every event type, one signing secret, created `at`. */
export const storedWebhookEndpoint = (endpoint: { workspaceId: string; id: string; url: string; at: Date }, overrides: Record<string, unknown> = {}) => ({
  ...keys.webhookEndpoint(endpoint.workspaceId, endpoint.id),
  entity: 'webhookEndpoint',
  id: endpoint.id,
  workspaceId: endpoint.workspaceId,
  url: endpoint.url,
  events: null,
  description: null,
  status: 'enabled',
  disabledReason: null,
  createdAt: endpoint.at.toISOString(),
  updatedAt: endpoint.at.toISOString(),
  secrets: [{ secret: newWebhookSecret(), expiresAt: null }],
  ...overrides,
});
