/**
 * Failures of a dependency (DynamoDB, SQS) that say nothing about the request: the service did
 * not answer at all, or answered that it is overloaded or broken, even after the SDK's own
 * retries. The same request may well succeed a moment later.
 */
const SOCKET_CODES = new Set(['ECONNREFUSED', 'ECONNRESET', 'ECONNABORTED', 'EPIPE', 'ETIMEDOUT', 'EHOSTUNREACH', 'ENETUNREACH', 'EAI_AGAIN']);
const UNAVAILABLE_NAMES = new Set([
  'TimeoutError',
  'RequestTimeout',
  'ThrottlingException',
  'ProvisionedThroughputExceededException',
  'RequestLimitExceeded',
  'InternalServerError',
  'InternalFailure',
  'ServiceUnavailable',
  'ServiceUnavailableException',
]);

interface SdkErrorShape {
  name?: string;
  code?: string;
  /** Set by the SDK's retry step on every error that went through it; no status code means no answer came. */
  $metadata?: { httpStatusCode?: number };
}

export function isDependencyUnavailable(error: unknown): boolean {
  // Not `instanceof Error`: a socket error may come from another realm (jest's, say), which the
  // SDK then wraps, dropping its `code`; the missing status code still tells.
  if (typeof error !== 'object' || error === null) return false;
  const { name, code, $metadata } = error as SdkErrorShape;
  if ($metadata && $metadata.httpStatusCode === undefined) return true;
  return SOCKET_CODES.has(code ?? '') || UNAVAILABLE_NAMES.has(name ?? '') || ($metadata?.httpStatusCode ?? 0) >= 500;
}
