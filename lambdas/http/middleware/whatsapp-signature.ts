import type middy from '@middy/core';
import type { APIGatewayProxyEvent, APIGatewayProxyResult } from 'aws-lambda';
import { whatsAppCredentials } from '../../domain/providers/whatsapp-credentials';
import { isValidWebhookSignature } from '../../domain/providers/whatsapp-webhook';
import { UnauthorizedError, ValidationError } from '../../shared/errors';
import { webhookMetrics } from '../../shared/metrics';
import type { HttpContext } from './http-context';

/**
 * Authenticates a WhatsApp webhook by `X-Hub-Signature-256`, the HMAC of the body exactly as
 * received. It runs before any parser: a request that is not signed is refused without its body
 * being read, so a hostile 10 MB body costs a hash at most, not a JSON parse.
 */
export function whatsAppSignature(): middy.MiddlewareObj<APIGatewayProxyEvent, APIGatewayProxyResult, Error, HttpContext> {
  return {
    before: async ({ event }) => {
      // Bytes as sent: decoded as text first, bytes that are not UTF-8 would become U+FFFD, and
      // other bytes than those signed could pass for them.
      const raw = typeof event.body !== 'string' ? '' : event.isBase64Encoded ? Buffer.from(event.body, 'base64') : event.body;
      // Headers are lower-cased by the header normaliser that runs first.
      const signature = event.headers?.['x-hub-signature-256'];
      const { appSecret } = await whatsAppCredentials();
      if (!isValidWebhookSignature(raw, signature, appSecret)) {
        webhookMetrics.refused();
        throw new UnauthorizedError('The X-Hub-Signature-256 header does not match the body');
      }
    },
    // Signed, but not Meta's envelope (422): refused whole too. Counted here, answered by the error mapper.
    onError: ({ error }) => {
      if (error instanceof ValidationError) webhookMetrics.refused();
    },
  };
}
