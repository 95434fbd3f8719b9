import type middy from '@middy/core';
import type { APIGatewayProxyEvent, APIGatewayProxyResult } from 'aws-lambda';
import { MEDIA_TYPES, type BodyEncoding } from '../../routes';
import { ValidationError } from '../../shared/errors';
import type { HttpContext } from './http-context';

/** A Content-Type's media type, lower case, without its parameters. */
export const mediaTypeOf = (contentType: string | undefined): string => (contentType ?? '').split(';')[0]!.trim().toLowerCase();

/**
 * A Content-Type's parameters after its media type (RFC 9110 §5.6.6): `;`, a name, and a token or a
 * quoted string, read one after another so a `;` or `charset=` inside a quoted value is that
 * value's. Whitespace around `=` and empty parameters are let pass; a name without a value is
 * skipped. Names are lower case, a quoted value unquoted; `written` is the parameter as sent.
 */
function parametersOf(contentType: string): { name: string; value: string; written: string }[] {
  const parameter = /\s*;\s*(?:([^\s;="]+)\s*(?:=\s*("(?:[^"\\]|\\.)*"|[^\s;"]*))?)?/y;
  parameter.lastIndex = contentType.indexOf(';') < 0 ? contentType.length : contentType.indexOf(';');
  const parameters: { name: string; value: string; written: string }[] = [];
  for (let match; parameter.lastIndex < contentType.length && (match = parameter.exec(contentType)) && match[0]; ) {
    const [, name, raw] = match;
    if (name && raw !== undefined) parameters.push({ name: name.toLowerCase(), value: raw.startsWith('"') ? raw.slice(1, -1).replace(/\\(.)/g, '$1') : raw, written: `${name}=${raw}` });
  }
  return parameters;
}

/**
 * Bodies are read as UTF-8: JSON is UTF-8 (RFC 8259), and the forms' escapes are read as UTF-8. A
 * body declared in another charset would reach the customer with its accented letters as U+FFFD,
 * so it is refused, and so is one that names its charset twice. ASCII is UTF-8's first 128 characters.
 */
const UTF8 = /^(utf-?8|us-ascii)$/i;

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
      const parameters = parametersOf(contentType);
      const charsets = parameters.filter((parameter) => parameter.name === 'charset');
      if (charsets.length > 1) throw new ValidationError('Content-Type names its charset more than once');
      const [charset] = charsets;
      if (charset && !UTF8.test(charset.value)) throw new ValidationError(`Content-Type charset must be utf-8; got ${/^\S+$/.test(charset.value) ? charset.value.toLowerCase() : JSON.stringify(charset.value)}`);
      request.event.headers = { ...headers, 'content-type': [mediaType, ...parameters.map(({ written }) => written)].join('; ') };
    },
  };
}
