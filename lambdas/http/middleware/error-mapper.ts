import type middy from '@middy/core';
import type { APIGatewayProxyEvent, APIGatewayProxyResult } from 'aws-lambda';
import { isDependencyUnavailable } from '../../shared/dependency-errors';
import { AppError, errorBody, ServiceUnavailableError, UpstreamTimeoutError, type ErrorCode } from '../../shared/errors';
import { logger } from '../../shared/logger';
import { requestIdOf } from '../request-id';
import { JSON_CONTENT_TYPE } from '../responses';
import type { HttpContext } from './http-context';

interface MiddyHttpError extends Error {
  statusCode: number;
  expose?: boolean;
}

const isMiddyHttpError = (error: unknown): error is MiddyHttpError =>
  error instanceof Error && typeof (error as Partial<MiddyHttpError>).statusCode === 'number';

/**
 * A Middy error's message for the caller. The JSON parser refuses a prototype key (`__proto__`, or
 * a `constructor` holding `prototype`) without saying which; the key is in its cause, and is
 * named as the form parsers name it.
 */
function middyMessage(error: MiddyHttpError): string {
  if (error.message === 'Unsupported Media Type') return 'Unsupported Content-Type';
  const key = (error.cause as { data?: unknown } | undefined)?.data;
  if (error.message === 'Forbidden key in JSON body' && typeof key === 'string') return `The JSON body could not be read: "${key}" is not a field name`;
  return error.message;
}

/** Middy's own answer when the handler is still running just before the function's timeout (its `timeoutEarlyResponse`). */
const isFunctionTimeout = (error: unknown): boolean =>
  error instanceof Error && error.name === 'TimeoutError' && (error.cause as { package?: string } | undefined)?.package === '@middy/core';

/**
 * Turns every failure into the contract's error body (docs/api.md#errors). Known errors keep their
 * code and message; Middy's parser errors (415 for malformed JSON) become 422 validation_failed;
 * a dependency that did not answer becomes 503 service_unavailable with Retry-After; anything
 * else is a generic 500 whose cause is logged, never returned.
 */
export function errorMapper(): middy.MiddlewareObj<APIGatewayProxyEvent, APIGatewayProxyResult, Error, HttpContext> {
  return {
    onError: (request) => {
      // Out of time is 504, whatever was waited on; a table or queue that did not answer is the caller's cue to retry, not an unexpected bug.
      const error = isFunctionTimeout(request.error)
        ? new UpstreamTimeoutError({ cause: request.error })
        : isDependencyUnavailable(request.error)
          ? new ServiceUnavailableError({ cause: request.error })
          : request.error;
      const requestId = requestIdOf(request.event, request.context);
      let code: ErrorCode;
      let message: string;
      let status: number;
      let headers: Record<string, string> = {};

      if (error instanceof AppError) {
        ({ code, message, status, headers } = error);
        if (error instanceof ServiceUnavailableError) logger.warn('Dependency unavailable', { error: code, status, cause: error.cause as Error });
        else if (error instanceof UpstreamTimeoutError) logger.error('Function ran out of time; answered 504', { error: code, status, remainingMs: request.context.getRemainingTimeInMillis?.() });
        else logger.info('Request rejected', { error: code, status });
      } else if (isMiddyHttpError(error) && error.statusCode < 500) {
        code = 'validation_failed';
        status = 422;
        message = middyMessage(error);
        logger.info('Request rejected', { error: code, status, cause: error.message });
      } else {
        code = 'internal_error';
        status = 500;
        message = 'An unexpected error occurred; quote the requestId when reporting it';
        logger.error('Unhandled error', error ?? 'unknown');
      }

      request.response = {
        statusCode: status,
        headers: { 'content-type': JSON_CONTENT_TYPE, 'x-request-id': requestId, ...headers },
        body: JSON.stringify(errorBody(code, message, requestId)),
      };
    },
  };
}
