import type { ErrorBody } from './error-body';

/**
 * Every error code a client can see, with its HTTP status: the one place these facts live.
 * Handlers throw the typed errors below; the HTTP error mapper and the API Gateway gateway
 * responses both render `{ success: false, error, message, requestId }` from this table.
 */
export const errorCodes = {
  bad_request: 400,
  unauthorized: 401,
  forbidden: 403,
  not_found: 404,
  idempotency_conflict: 409,
  duplicate_send: 409,
  webhook_endpoint_limit_reached: 409,
  payload_too_large: 413,
  validation_failed: 422,
  unsupported_channel_content: 422,
  template_not_found: 422,
  template_not_ready: 422,
  missing_variables: 422,
  recipient_opted_out: 422,
  rate_limited: 429,
  internal_error: 500,
  upstream_unavailable: 502,
  service_unavailable: 503,
  upstream_timeout: 504,
} as const;

export type ErrorCode = keyof typeof errorCodes;

/** An error whose code and message are safe to show the caller. */
export class AppError extends Error {
  readonly status: number;

  constructor(
    readonly code: ErrorCode,
    message: string,
    /** Extra response headers, such as `Retry-After`. */
    readonly headers: Record<string, string> = {},
    options?: ErrorOptions,
  ) {
    super(message, options);
    this.name = new.target.name;
    this.status = errorCodes[code];
  }
}

export class ValidationError extends AppError {
  constructor(message: string, code: Extract<ErrorCode, 'validation_failed' | 'unsupported_channel_content' | 'template_not_found' | 'template_not_ready' | 'missing_variables' | 'recipient_opted_out'> = 'validation_failed') {
    super(code, message);
  }
}

export class PayloadTooLargeError extends AppError {
  constructor(message: string) {
    super('payload_too_large', message);
  }
}

export class UnauthorizedError extends AppError {
  constructor(message = 'A valid API key is required in the X-API-Key header') {
    super('unauthorized', message);
  }
}

export class ForbiddenError extends AppError {
  constructor(scope: string) {
    super('forbidden', `This API key lacks the scope "${scope}" required by this operation`);
  }
}

export class NotFoundError extends AppError {
  constructor(what: string) {
    super('not_found', `${what} was not found`);
  }
}

export class ConflictError extends AppError {
  constructor(code: Extract<ErrorCode, 'idempotency_conflict' | 'duplicate_send' | 'webhook_endpoint_limit_reached'>, message: string) {
    super(code, message);
  }
}

export class RateLimitedError extends AppError {
  constructor(retryAfterSeconds: number) {
    super('rate_limited', `Send rate limit reached; retry in ${retryAfterSeconds} s`, { 'Retry-After': String(retryAfterSeconds) });
  }
}

export class UpstreamUnavailableError extends AppError {
  constructor(message: string, options?: ErrorOptions) {
    super('upstream_unavailable', message, {}, options);
  }
}

/** A dependency (the table, the queue) is briefly unreachable; nothing about the request is wrong. */
export class ServiceUnavailableError extends AppError {
  constructor(options?: ErrorOptions) {
    super('service_unavailable', 'A service this API depends on is briefly unavailable; retry the request', { 'Retry-After': '1' }, options);
  }
}

/**
 * The function ran out of its time (Middy answers just before Lambda would cut it off): what was
 * under way may have finished or not, so the caller retries, a send with its Idempotency-Key.
 */
export class UpstreamTimeoutError extends AppError {
  constructor(options?: ErrorOptions) {
    super('upstream_timeout', 'The request did not finish within the function’s time; retry it (with the same Idempotency-Key, for a send)', {}, options);
  }
}

export function errorBody(code: ErrorCode, message: string, requestId?: string): ErrorBody {
  return requestId ? { success: false, error: code, message, requestId } : { success: false, error: code, message };
}
