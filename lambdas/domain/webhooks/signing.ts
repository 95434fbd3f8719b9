import { createHmac } from 'node:crypto';

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
    'webhook-signature': signing.map((entry) => signature(entry.secret, `${eventId}.${Math.floor(at.getTime() / 1000)}.${body}`)).join(' '),
  };
}

const SECRET_PREFIX = 'whsec_';

/**
 * One `v1,` signature, as the Standard Webhooks spec defines it: HMAC-SHA256 keyed with the
 * secret's base64-decoded bytes (its `whsec_` prefix dropped), over the UTF-8 content, base64.
 * Node's HMAC, not the `standardwebhooks` package's: that one hashes in JavaScript and brought
 * 8 KB to the consumer's bundle. The tests verify every signature with the package.
 */
function signature(secret: string, content: string): string {
  const key = Buffer.from(secret.startsWith(SECRET_PREFIX) ? secret.slice(SECRET_PREFIX.length) : secret, 'base64');
  return `v1,${createHmac('sha256', key).update(content, 'utf8').digest('base64')}`;
}
