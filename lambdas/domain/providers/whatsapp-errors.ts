import { ProviderError } from './provider';

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
  131056, // pair rate limit: too many messages to one number
  133004, // server temporarily unavailable
]);

/** Classifies an error answer: the HTTP status and the API's `error.code`. */
export function classifyWhatsAppError(httpStatus: number, code: number | undefined, message: string): ProviderError {
  const label = String(code ?? `http_${httpStatus}`);
  if ((code !== undefined && TRANSIENT_CODES.has(code)) || httpStatus === 429 || httpStatus >= 500) {
    return new ProviderError('transient', label, message);
  }
  return new ProviderError('permanent', label, message);
}
