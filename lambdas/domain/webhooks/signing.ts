import { Webhook } from 'standardwebhooks';

/** A secret of an endpoint (`whsec_` + base64), and until when it still signs; null: for as long as it is current. */
export interface SigningSecret {
  secret: string;
  expiresAt: string | null;
}

/**
 * The Standard Webhooks headers of one POST: `webhook-id` (the event id, the same on every
 * retry), `webhook-timestamp` (Unix seconds of this attempt) and `webhook-signature`, one
 * `v1,<base64 HMAC-SHA256>` of `id.timestamp.body` per secret that still signs, space-separated,
 * so a receiver holding either secret verifies during a rotation's overlap.
 */
export function signedHeaders(secrets: readonly SigningSecret[], eventId: string, at: Date, body: string): Record<string, string> {
  const signing = secrets.filter((entry) => entry.expiresAt === null || Date.parse(entry.expiresAt) > at.getTime());
  return {
    'webhook-id': eventId,
    'webhook-timestamp': String(Math.floor(at.getTime() / 1000)),
    'webhook-signature': signing.map((entry) => new Webhook(entry.secret).sign(eventId, at, body)).join(' '),
  };
}
