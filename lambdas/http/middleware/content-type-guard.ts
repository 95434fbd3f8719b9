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
 * skipped. Names are lower case, a quoted value unquoted; `written` is the parameter as sent. What
 * cannot be read so is refused, rather than the rest left unread: a charset may stand after it.
 */
function parametersOf(contentType: string): { name: string; value: string; written: string }[] {
  const parameter = /\s*;\s*(?:([^\s;="]+)\s*(?:=\s*("(?:[^"\\]|\\.)*"|[^\s;"]*))?)?/y;
  const parameters: { name: string; value: string; written: string }[] = [];
  let at = contentType.indexOf(';') < 0 ? contentType.length : contentType.indexOf(';');
  for (; at < contentType.length; at = parameter.lastIndex) {
    parameter.lastIndex = at;
    const match = parameter.exec(contentType);
    if (!match?.[0]) break;
    const [, name, raw] = match;
    if (name && raw !== undefined) parameters.push({ name: name.toLowerCase(), value: raw.startsWith('"') ? raw.slice(1, -1).replace(/\\(.)/g, '$1') : raw, written: `${name}=${raw}` });
  }
  const unread = contentType.slice(at).trim();
  if (unread) throw new ValidationError(`Content-Type parameters cannot be read from ${JSON.stringify(unread)}`);
  return parameters;
}

/**
 * Bodies are read as UTF-8: JSON is UTF-8 (RFC 8259), and the forms' escapes are read as UTF-8. A
 * body declared in another charset would reach the customer with its accented letters as U+FFFD,
 * so it is refused, and so is one that names another charset beside UTF-8 (which of the two it is
 * in, nobody knows); UTF-8 named twice, as some client stacks add it, is UTF-8. ASCII is UTF-8's
 * first 128 characters.
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
      const other = parameters.find((parameter) => parameter.name === 'charset' && !UTF8.test(parameter.value));
      if (other) throw new ValidationError(`Content-Type charset must be utf-8; got ${/^\S+$/.test(other.value) ? other.value.toLowerCase() : JSON.stringify(other.value)}`);
      // UTF-8 named twice is written once.
      const charset = parameters.find(({ name }) => name === 'charset');
      const kept = parameters.filter((parameter) => parameter.name !== 'charset' || parameter === charset);
      request.event.headers = { ...headers, 'content-type': [mediaType, ...kept.map(({ written }) => written)].join('; ') };
    },
  };
}
