import * as z from 'zod';
import { applyProviderReports } from '../domain/delivery/provider-reports';
import { whatsAppCredentials } from '../domain/providers/whatsapp-credentials';
import { isValidWebhookSignature, webhookPayloadSchema } from '../domain/providers/whatsapp-webhook';
import { publicHttpHandler, type HttpRequest, type ResponseBody } from '../http/public-http-handler';
import { parseWith } from '../http/input';
import { ok } from '../http/responses';
import { UnauthorizedError } from '../shared/errors';
import { logger } from '../shared/logger';
import { routes } from '../routes';

/**
 * POST /webhooks/whatsapp: status callbacks and inbound messages. The signature is checked on the
 * raw body, in constant time, before anything is read or written.
 */
export const schemas = {
  headers: z.object({ 'x-hub-signature-256': z.string().optional() }),
  response: z.strictObject({ success: z.literal(true) }),
};

export const receiveWhatsAppWebhook = async ({ rawBody, headers }: HttpRequest<typeof schemas>) => {
  const { appSecret } = await whatsAppCredentials();
  if (!rawBody || !isValidWebhookSignature(rawBody, headers['x-hub-signature-256'], appSecret)) throw new UnauthorizedError('The X-Hub-Signature-256 header does not match the body');
  const payload = parseWith(webhookPayloadSchema, JSON.parse(rawBody), 'body');
  const summary = await applyProviderReports(payload);
  logger.info('Webhook applied', { ...summary });
  return ok<ResponseBody<typeof schemas>>({ success: true });
};

export const handler = publicHttpHandler(routes.whatsappWebhook, schemas, receiveWhatsAppWebhook);
