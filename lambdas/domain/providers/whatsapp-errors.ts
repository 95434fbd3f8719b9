import type { RequestWrites } from './request-writes';
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
  131048, // spam rate limit: the number is restricted for its quality, for hours, not seconds
  // Limits the Graph API counts over a rolling hour: calls fail until the count falls (Meta's rate limits).
  4, // application request limit reached
  17, // user request limit reached (Graph: "wait and retry")
  341, // application limit reached (Graph: "wait and retry")
  80007, // WhatsApp Business Account rate limit
]);

/**
 * WhatsApp down (decision 228): Meta answers these with a 503 and advises checking the WhatsApp
 * Business Platform Status page before trying again; the outages it reports there last minutes,
 * often tens of them, not the seconds a short back-off waits.
 */
const OUTAGE_CODES = new Set([
  2, // API service: temporary due to downtime or due to being overloaded
  131016, // service unavailable
  133004, // server temporarily unavailable
]);

/**
 * WhatsApp Cloud API error codes that are worth retrying (throttling, temporary outages). Every
 * other error the API answers is permanent for that message: retrying would fail the same way.
 */
const TRANSIENT_CODES = new Set([
  1, // API unknown
  130429, // throughput rate limit
  131000, // something went wrong
  ...LONG_REFUSALS,
  ...OUTAGE_CODES,
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
  102, // API session: the session or access token expired or was revoked (Graph)
  190, // access token expired or invalid
  131005, // access denied: permission not granted or removed
]);
/** 200-299: API permission errors, one code per permission. */
const isPermissionCode = (code: number) => code >= 200 && code <= 299;

/** The Graph API's error object, as Meta's error reference gives it. */
export interface GraphError {
  code?: number;
  message?: string;
  type?: string;
  error_subcode?: number;
  /** `{ details }` as documented; some Graph errors give a string, read as no details. */
  error_data?: unknown;
  fbtrace_id?: string;
}

/**
 * What an error's `error_data` says was wrong, when it says it as documented. Read by hand, not by
 * a zod `catch`: that pulls zod's English error messages into every bundle that parses webhooks (8 KB).
 */
export function graphErrorDetails(errorData: unknown): string | undefined {
  const details = typeof errorData === 'object' && errorData !== null ? (errorData as { details?: unknown }).details : undefined;
  return typeof details === 'string' && details ? details : undefined;
}

/**
 * Classifies an error answer by the API's `error.code`, as Meta advises ("rather than subcodes or
 * HTTP response status codes"): a permanent refusal Meta answers with a 500, such as 131045, is
 * not retried. The HTTP status decides an answer without a Graph error (a gateway's page: a 5xx
 * or 429 there says the API is down or shedding load, as an outage code does), and a 429 is a
 * limit whatever its code.
 * The message is Meta's, with its `error_data.details` (which says what was wrong, where the
 * message is generic); the subcode and trace id go with it as the error's detail, for the
 * operators' log lines.
 */
export function classifyWhatsAppError(httpStatus: number, error: GraphError | undefined, accessToken?: string): ProviderError {
  const code = error?.code;
  const label = String(code ?? `http_${httpStatus}`);
  const details = graphErrorDetails(error?.error_data);
  const message = withoutToken([error?.message ?? `HTTP ${httpStatus}`, details].filter(Boolean).join(': '), accessToken);
  const detail = {
    ...(error?.type ? { type: error.type } : {}),
    ...(error?.error_subcode !== undefined ? { subcode: error.error_subcode } : {}),
    ...(details ? { details: withoutToken(details, accessToken) } : {}),
    ...(error?.fbtrace_id ? { fbtraceId: error.fbtrace_id } : {}),
  };
  if (code === undefined) {
    if (httpStatus === 401) return new ProviderError('credentials', label, message, { detail });
    if (httpStatus === 429 || httpStatus >= 500) return new ProviderError('transient', label, message, { detail, backOff: 'outage' });
    return new ProviderError('permanent', label, message, { detail });
  }
  if (CREDENTIAL_CODES.has(code) || isPermissionCode(code)) return new ProviderError('credentials', label, message, { detail });
  // A 429 is a limit whatever its code says; a 5xx with a code is what the code says.
  if (TRANSIENT_CODES.has(code) || httpStatus === 429) return new ProviderError('transient', label, message, { detail, backOff: backOffOf(code) });
  return new ProviderError('permanent', label, message, { detail });
}

const backOffOf = (code: number): ProviderError['backOff'] => (OUTAGE_CODES.has(code) ? 'outage' : LONG_REFUSALS.has(code) ? 'long' : 'short');

/**
 * Text that may quote the access token with the token cut out: Meta quotes one it cannot parse in
 * its error 190 ("Malformed access token EAAG…"), and such text reaches the operators' log lines.
 * Cut out too: anything shaped like a Meta token (EA and 20 letters and digits or more), which Meta
 * may quote as it read it rather than as we sent it.
 */
export function withoutToken(text: string, accessToken?: string): string {
  // A token of a few characters is no credential (a test's, a placeholder): cutting it would cut letters out of Meta's words.
  const cut = accessToken && accessToken.length >= 16 ? text.split(accessToken).join(TOKEN_MARK) : text;
  return cut.replace(/EA[A-Za-z0-9]{20,}/g, TOKEN_MARK);
}
const TOKEN_MARK = '[access token]';

/**
 * Connection failures that come before a request is written (refused, no such host, no route, a
 * connect that timed out, a TLS handshake refused): WhatsApp cannot have the message, so sending it
 * again is safe. Any other lost connection (reset, closed by the other side) may fall after
 * WhatsApp read the whole request and sent the message, as may a timeout.
 */
const BEFORE_REQUEST = new Set(['ECONNREFUSED', 'ENOTFOUND', 'EAI_AGAIN', 'ENETUNREACH', 'EHOSTUNREACH', 'UND_ERR_CONNECT_TIMEOUT', 'CERT_HAS_EXPIRED', 'UNABLE_TO_VERIFY_LEAF_SIGNATURE', 'DEPTH_ZERO_SELF_SIGNED_CERT', 'SELF_SIGNED_CERT_IN_CHAIN']);
const isBeforeRequest = (code: string | undefined) => code !== undefined && (BEFORE_REQUEST.has(code) || code.startsWith('ERR_TLS_') || code.startsWith('ERR_SSL_'));

/**
 * Classifies a send that got no answer: `fetch`'s error, its cause carrying the socket's code.
 * What the HTTP client says of the request decides first (decision 215): never written, it never
 * reached WhatsApp, though the connect hung until our timeout (a dropped SYN never ends in the
 * client's own connect timeout, which is longer than ours); written, it may have, though the error
 * reads like a connection never made (a TLS or routing error on a kept-alive connection). The
 * error's code decides only when the client told nothing.
 */
export function classifyUnansweredSend(error: unknown, timeoutMs: number, accessToken?: string, writes?: RequestWrites): ProviderError {
  const { name, message, cause } = error as Error & { cause?: { code?: string } };
  const timedOut = name === 'TimeoutError' || name === 'AbortError';
  const detail = timedOut ? `no connection within ${timeoutMs} ms` : withoutToken(`${message}${cause?.code ? ` (${cause.code})` : ''}`, accessToken);
  // An error that quoted the token is not kept as the cause: it would be logged with it.
  const options = detail.includes(TOKEN_MARK) ? undefined : { cause: error };
  const neverWritten = writes?.made ? !writes.written : !timedOut && isBeforeRequest(cause?.code);
  if (neverWritten) return new ProviderError('transient', 'network', `WhatsApp could not be reached: ${detail}`, { ...options, reached: false });
  if (timedOut) return new ProviderError('unknown', 'timeout', `WhatsApp did not answer within ${timeoutMs} ms`, { cause: error });
  return new ProviderError('unknown', 'connection_lost', `The connection to WhatsApp was lost before its answer: ${detail}`, options);
}

/**
 * A gateway's own 502 or 504 (no Graph error in it) says the proxy in front of the Graph API lost
 * its upstream, which may have taken the message: not the "later" a Graph error is.
 */
export const isGatewayLoss = (httpStatus: number, code: number | undefined) => code === undefined && (httpStatus === 502 || httpStatus === 504);
