import type middy from '@middy/core';
import type { APIGatewayProxyEvent, APIGatewayProxyResult } from 'aws-lambda';
import type { HttpContext } from './http-context';

/**
 * Parses `application/x-www-form-urlencoded` and `multipart/form-data` bodies into the same
 * nested shape a JSON body has (`content[type]=template` → `{ content: { type: 'template' } }`).
 * Middy's own form parsers are not used: its multipart parser turns every `a[b]` name into an
 * array under `a`, which loses the nesting the contract's bodies need (docs/decisions.md).
 * The decoders (qs, busboy) load on the first form: evaluating them took about 20 ms of every cold
 * start, JSON sends' too (decision 107).
 */
export function formBodyParser(): middy.MiddlewareObj<APIGatewayProxyEvent, APIGatewayProxyResult, Error, HttpContext> {
  return {
    before: async (request) => {
      const { event } = request;
      if (typeof event.body !== 'string') return;
      const contentType = event.headers?.['content-type'] ?? '';
      const raw = event.isBase64Encoded ? Buffer.from(event.body, 'base64') : Buffer.from(event.body, 'utf8');
      if (/^application\/x-www-form-urlencoded\b/i.test(contentType)) {
        const { expand } = await import('./form-decoding');
        (event as { body: unknown }).body = expand(raw.toString('utf8'));
      } else if (/^multipart\/form-data\b/i.test(contentType)) {
        const { expand, multipartFields } = await import('./form-decoding');
        (event as { body: unknown }).body = expand(new URLSearchParams(await multipartFields(raw, contentType)).toString());
      }
    },
  };
}
