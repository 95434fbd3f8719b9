import * as z from '../shared/zod';
import { applyProviderReports } from '../domain/delivery/provider-reports';
import { webhookEnvelopeSchema } from '../domain/providers/whatsapp-webhook';
import { whatsAppSignature } from '../http/middleware/whatsapp-signature';
import { withWellFormedText } from '../shared/unicode-text';
import { publicHttpHandler, type HttpRequest, type ResponseBody } from '../http/public-http-handler';
import { ok } from '../http/responses';
import { logger } from '../shared/logger';
import * as routes from '../routes';
import { bodyReading } from '../http/middleware/body-reading';

/** The envelope only: its items are read one by one, so one we do not understand never refuses the batch. */
export const schemas = { body: webhookEnvelopeSchema, response: z.strictObject({ success: z.literal(true) }) };

/**
 * POST /webhooks/whatsapp: status callbacks and inbound messages. The stack has checked the
 * signature on the raw body (whatsAppSignature) before parsing it, so this body is Meta's.
 */
export const receiveWhatsAppWebhook = async ({ body }: HttpRequest<typeof schemas>) => {
  const summary = await applyProviderReports(body);
  // Three POSTs a delivered, read message: a skipped item has its own WARN line and metric, so the routine summary is DEBUG (docs/cost.md).
  logger.debug('Webhook applied', { ...summary });
  return ok<ResponseBody<typeof schemas>>({ success: true });
};

export const handler = publicHttpHandler(routes.whatsappWebhook, schemas, receiveWhatsAppWebhook, { bodyReading, signatureCheck: whatsAppSignature, providerBody: withWellFormedText });
