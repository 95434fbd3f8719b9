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
  // Ours: a batch read or write DynamoDB kept leaving unprocessed (throttling), after its tries.
  'UnprocessedItemsError',
]);

/** A batch read or write whose items DynamoDB kept leaving unprocessed: the table throttling, not a bug in the request. */
export class UnprocessedItemsError extends Error {
  override name = 'UnprocessedItemsError';
}

/**
 * A cancelled transaction's reasons that say the table could not take it for now (over its
 * provisioned capacity, or throttled on demand), not that one of its writes was refused: nothing
 * of it was written or decided (https://docs.aws.amazon.com/amazondynamodb/latest/APIReference/API_TransactWriteItems.html).
 */
const THROTTLED_REASONS = new Set(['ProvisionedThroughputExceeded', 'ThrottlingError']);

interface SdkErrorShape {
  name?: string;
  code?: string;
  CancellationReasons?: { Code?: string }[];
  /** Set by the SDK's retry step on every error that went through it; no status code means no answer came. */
  $metadata?: { httpStatusCode?: number; attempts?: number };
}

export function isDependencyUnavailable(error: unknown): boolean {
  // Not `instanceof Error`: a socket error may come from another realm (jest's, say), which the
  // SDK then wraps, dropping its `code`; the missing status code still tells.
  if (typeof error !== 'object' || error === null) return false;
  const { name, code, $metadata } = error as SdkErrorShape;
  if ($metadata && $metadata.httpStatusCode === undefined) return true;
  if (name === 'TransactionCanceledException') return isThrottledTransaction(error);
  return SOCKET_CODES.has(code ?? '') || UNAVAILABLE_NAMES.has(name ?? '') || ($metadata?.httpStatusCode ?? 0) >= 500;
}

/** A cancelled transaction that the table throttled: an answer that decides nothing about its writes. */
export function isThrottledTransaction(error: unknown): boolean {
  if (typeof error !== 'object' || error === null) return false;
  const { name, CancellationReasons } = error as SdkErrorShape;
  return name === 'TransactionCanceledException' && (CancellationReasons ?? []).some((reason) => THROTTLED_REASONS.has(reason.Code ?? ''));
}

/**
 * A write that failed this way certainly wrote nothing: the table answered its one request with a
 * refusal (a throttle). No answer, a 5xx (DynamoDB's own "may or may not have been processed") or
 * an answer after the SDK's own retries (an earlier request's answer may have been lost) leaves the
 * write perhaps applied.
 */
export function wroteNothing(error: unknown): boolean {
  if (typeof error !== 'object' || error === null) return false;
  const { $metadata } = error as SdkErrorShape;
  const status = $metadata?.httpStatusCode;
  return status !== undefined && status < 500 && ($metadata?.attempts ?? 1) <= 1;
}
