import { createHmac, timingSafeEqual } from 'node:crypto';
import * as z from 'zod';

/**
 * The WhatsApp Cloud API webhook (messages field): delivery statuses of our messages and inbound
 * customer messages. Only what we use is declared; the rest passes through.
 */
const statusSchema = z.object({
  id: z.string(),
  status: z.enum(['sent', 'delivered', 'read', 'failed']),
  timestamp: z.string().regex(/^\d+$/),
  recipient_id: z.string().optional(),
  /** We send the dispatch id here, and WhatsApp echoes it on every status. */
  biz_opaque_callback_data: z.string().optional(),
  errors: z.array(z.object({ code: z.union([z.number(), z.string()]), title: z.string().optional() })).optional(),
});

const inboundSchema = z.object({
  from: z.string(),
  id: z.string(),
  timestamp: z.string().regex(/^\d+$/),
  type: z.string(),
  text: z.object({ body: z.string() }).optional(),
});

export const webhookPayloadSchema = z.object({
  object: z.literal('whatsapp_business_account'),
  entry: z.array(
    z.object({
      id: z.string().optional(),
      changes: z.array(
        z.object({
          field: z.string(),
          // Loose: each field has its own value shape (template fields are read by templates/template-webhook.ts).
          value: z.looseObject({
            metadata: z.object({ phone_number_id: z.string() }).optional(),
            contacts: z.array(z.object({ wa_id: z.string(), profile: z.object({ name: z.string() }).optional() })).optional(),
            statuses: z.array(statusSchema).optional(),
            messages: z.array(inboundSchema).optional(),
          }),
        }),
      ),
    }),
  ),
});

export type WebhookPayload = z.infer<typeof webhookPayloadSchema>;
export type WebhookStatus = z.infer<typeof statusSchema>;
export type InboundMessage = z.infer<typeof inboundSchema>;

/** `X-Hub-Signature-256`: "sha256=" and the hex HMAC-SHA256 of the raw body with the app secret. */
export function signWebhookBody(rawBody: string, appSecret: string): string {
  return `sha256=${createHmac('sha256', appSecret).update(rawBody, 'utf8').digest('hex')}`;
}

/** Compares in constant time, on the exact bytes received (never a re-serialised body). */
export function isValidWebhookSignature(rawBody: string, header: string | undefined, appSecret: string): boolean {
  if (!header) return false;
  const expected = Buffer.from(signWebhookBody(rawBody, appSecret));
  const given = Buffer.from(header.trim());
  return given.length === expected.length && timingSafeEqual(given, expected);
}

/** A status webhook as WhatsApp sends it; the sandbox reports through the same shape. */
export function statusWebhook(phoneNumberId: string, statuses: WebhookStatus[]): WebhookPayload {
  return {
    object: 'whatsapp_business_account',
    entry: [{ id: 'sandbox', changes: [{ field: 'messages', value: { metadata: { phone_number_id: phoneNumberId }, statuses } }] }],
  };
}
