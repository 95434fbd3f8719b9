import { ProviderError } from './provider';

/**
 * Refusals that last minutes, not seconds (decision 138): too many messages from the number to one
 * recipient (about one every 6 s, a burst borrowed from the time after it; messages to anyone
 * else go through), and a number in maintenance mode, as during its throughput upgrade (up to a
 * minute).
 */
const LONG_REFUSALS = new Set([
  131056, // pair rate limit: too many messages to one number
  131057, // account in maintenance mode
]);

/**
 * WhatsApp Cloud API error codes that are worth retrying (throttling, temporary outages). Every
 * other error the API answers is permanent for that message: retrying would fail the same way.
 */
const TRANSIENT_CODES = new Set([
  1, // API unknown
  2, // API service temporarily unavailable
  4, // application request limit reached
  80007, // WhatsApp Business Account rate limit
  130429, // throughput rate limit
  131000, // something went wrong
  131016, // service unavailable
  131048, // spam rate limit
  ...LONG_REFUSALS,
  133004, // server temporarily unavailable
]);

/**
 * Graph API authorization errors: the access token expired, was revoked or lacks a permission.
 * They say nothing about the message, and every other message would fail the same way until the
 * token is fixed (docs/operations.md#whatsapp-token-refused).
 */
const CREDENTIAL_CODES = new Set([
  0, // AuthException: the token could not be authenticated (expired, invalidated)
  3, // API method: capability or permission missing
  10, // permission denied: not granted or removed
  190, // access token expired or invalid
  131005, // access denied: permission not granted or removed
]);
/** 200-299: API permission errors, one code per permission. */
const isPermissionCode = (code: number) => code >= 200 && code <= 299;

/** Classifies an error answer: the HTTP status and the API's `error.code`. */
export function classifyWhatsAppError(httpStatus: number, code: number | undefined, message: string): ProviderError {
  const label = String(code ?? `http_${httpStatus}`);
  if ((code !== undefined && (CREDENTIAL_CODES.has(code) || isPermissionCode(code))) || (code === undefined && httpStatus === 401)) {
    return new ProviderError('credentials', label, message);
  }
  if ((code !== undefined && TRANSIENT_CODES.has(code)) || httpStatus === 429 || httpStatus >= 500) {
    return new ProviderError('transient', label, message, { backOff: code !== undefined && LONG_REFUSALS.has(code) ? 'long' : 'short' });
  }
  return new ProviderError('permanent', label, message);
}
