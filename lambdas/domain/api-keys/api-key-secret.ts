import { createHash, randomBytes } from 'node:crypto';

const ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';
/** Seed and demo keys (msk_local_demo_0001) are shorter than generated ones; both are accepted. */
const WELL_FORMED = /^msk_[A-Za-z0-9_]{8,200}$/;

/** A new key: `msk_<environment>_` and 32 random base62 characters (~190 bits). */
export function generateApiKey(environment = 'live'): string {
  const bytes = randomBytes(32);
  let secret = '';
  for (const byte of bytes) secret += ALPHABET[byte % ALPHABET.length];
  return `msk_${environment}_${secret}`;
}

/** Keys are stored and looked up only by this hash; the plaintext never reaches the table or logs. */
export function hashApiKey(key: string): string {
  return createHash('sha256').update(key, 'utf8').digest('hex');
}

export function isWellFormedApiKey(key: string): boolean {
  return WELL_FORMED.test(key);
}

/** The last four characters, so an operator can tell keys apart in a listing. */
export function apiKeyHint(key: string): string {
  return `…${key.slice(-4)}`;
}
