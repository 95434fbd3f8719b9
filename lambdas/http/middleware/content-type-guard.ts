import type middy from '@middy/core';
import type { APIGatewayProxyEvent, APIGatewayProxyResult } from 'aws-lambda';
import { MEDIA_TYPES, type BodyEncoding } from '../../routes';
import { ValidationError } from '../../shared/errors';
import type { HttpContext } from './http-context';

/** A Content-Type's media type, lower case, without its parameters. */
export const mediaTypeOf = (contentType: string | undefined): string => (contentType ?? '').split(';')[0]!.trim().toLowerCase();

/**
 * Bodies are read as UTF-8: JSON is UTF-8 (RFC 8259), and the forms' escapes are read as UTF-8. A
 * body declared in another charset would reach the customer with its accented letters as U+FFFD,
 * so it is refused. ASCII is UTF-8's first 128 characters.
 */
const charsetOf = (contentType: string) => /;\s*charset\s*=\s*"?([^";\s]+)/i.exec(contentType)?.[1]!.toLowerCase();
const UTF8 = /^(utf-?8|us-ascii)$/;

/**
 * Rejects a missing body, or a Content-Type the route does not accept or in another charset, before any parser runs; an
 * accepted one is rewritten in one spelling (`application/json; charset=utf-8`), since the parsers
 * after it match it as written: Middy's JSON parser skipped `application/json ; charset=utf-8`,
 * which RFC 9110 allows, and the route then read the body as a string.
 */
export function contentTypeGuard(accepted: readonly BodyEncoding[]): middy.MiddlewareObj<APIGatewayProxyEvent, APIGatewayProxyResult, Error, HttpContext> {
  const allowed = accepted.map((encoding): string => MEDIA_TYPES[encoding]);
  return {
    before: (request) => {
      const { body, headers } = request.event;
      const contentType = headers?.['content-type'] ?? '';
      const mediaType = mediaTypeOf(contentType);
      if (!allowed.includes(mediaType)) {
        throw new ValidationError(`Content-Type must be ${allowed.join(', ')}${mediaType ? `; got ${mediaType}` : ''}`);
      }
      if (body === null || body === undefined || body === '') throw new ValidationError('A request body is required');
      const parameters = contentType.split(';').slice(1).map((parameter) => parameter.trim()).filter(Boolean);
      const charset = charsetOf(contentType);
      if (charset && !UTF8.test(charset)) throw new ValidationError(`Content-Type charset must be utf-8; got ${charset}`);
      request.event.headers = { ...headers, 'content-type': [mediaType, ...parameters].join('; ') };
    },
  };
}
