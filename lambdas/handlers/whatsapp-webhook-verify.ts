import { timingSafeEqual } from 'node:crypto';
import * as z from '../shared/zod';
import { whatsAppCredentials } from '../domain/providers/whatsapp-credentials';
import { publicHttpHandler, type HttpRequest } from '../http/public-http-handler';
import { text } from '../http/responses';
import { AppError } from '../shared/errors';
import * as routes from '../routes';

export const schemas = {
  query: z.object({ 'hub.mode': z.literal('subscribe'), 'hub.verify_token': z.string().check(z.minLength(1)), 'hub.challenge': z.string().check(z.minLength(1), z.maxLength(256)) }),
  /** The challenge, echoed as plain text. */
  response: z.string(),
};

/** GET /webhooks/whatsapp: Meta's subscription handshake; answers the challenge as plain text. */
export const verifyWhatsAppWebhook = async ({ query }: HttpRequest<typeof schemas>) => {
  const { verifyToken } = await whatsAppCredentials();
  const given = Buffer.from(query['hub.verify_token']);
  const expected = Buffer.from(verifyToken);
  if (given.length !== expected.length || !timingSafeEqual(given, expected)) throw new AppError('forbidden', 'The verify token does not match');
  return text(query['hub.challenge']);
};

export const handler = publicHttpHandler(routes.whatsappWebhookVerify, schemas, verifyWhatsAppWebhook);
