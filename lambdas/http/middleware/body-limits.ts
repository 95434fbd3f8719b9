import type middy from '@middy/core';
import type { APIGatewayProxyEvent, APIGatewayProxyResult } from 'aws-lambda';
import { PayloadTooLargeError, ValidationError } from '../../shared/errors';
import { MEDIA_TYPES } from '../../routes';
import { mediaTypeOf } from './content-type-guard';
import type { HttpContext } from './http-context';

/**
 * The largest body an authenticated route reads: the largest valid send (50 variables of 4000
 * characters, each escaped as `\uXXXX`, about 1.2 MB) fits with room to spare. API Gateway's own
 * limit is 10 MB.
 */
export const MAX_BODY_BYTES = 2 * 1024 * 1024;
/** No request of ours nests deeper than 4 levels; a JSON parser should not be made to walk 100 000. */
export const MAX_BODY_DEPTH = 16;

/**
 * Refuses an oversized (413) or over-deep (422) JSON body before any parser runs, so a hostile body
 * costs a byte count and one scan, not a parse and a validation that lists every key.
 */
export function bodyLimits(): middy.MiddlewareObj<APIGatewayProxyEvent, APIGatewayProxyResult, Error, HttpContext> {
  return {
    before: ({ event }) => {
      const { body } = event;
      if (!body) return;
      const bytes = event.isBase64Encoded ? Math.floor((body.length * 3) / 4) : Buffer.byteLength(body, 'utf8');
      if (bytes > MAX_BODY_BYTES) throw new PayloadTooLargeError(`The body is ${bytes} bytes; at most ${MAX_BODY_BYTES} are read`);
      // JSON only: a form's brackets in a value are text, and its names' nesting is bounded by its parser (form-decoding.ts).
      const json = mediaTypeOf(event.headers?.['content-type']) === MEDIA_TYPES.json;
      if (json && !event.isBase64Encoded && nestingExceeds(body, MAX_BODY_DEPTH)) throw new ValidationError(`body: nests deeper than ${MAX_BODY_DEPTH} levels`);
    },
  };
}

/** True when JSON-like text opens more than `limit` arrays or objects at once (brackets in strings do not count). */
export function nestingExceeds(text: string, limit: number): boolean {
  let depth = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const char = text.charCodeAt(i);
    if (inString) {
      if (char === 0x5c) i++; // backslash: skip the escaped character
      else if (char === 0x22) inString = false;
    } else if (char === 0x22) inString = true;
    else if (char === 0x7b || char === 0x5b) {
      if (++depth > limit) return true;
    } else if (char === 0x7d || char === 0x5d) depth--;
  }
  return false;
}
