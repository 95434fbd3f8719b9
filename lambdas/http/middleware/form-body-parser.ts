import type middy from '@middy/core';
import type { APIGatewayProxyEvent, APIGatewayProxyResult } from 'aws-lambda';
import type * as z from '../../shared/zod';
import type { HttpContext } from './http-context';

/**
 * Parses `application/x-www-form-urlencoded` and `multipart/form-data` bodies into the same
 * nested shape a JSON body has (`content[type]=template` → `{ content: { type: 'template' } }`).
 * Middy's own form parsers are not used: its multipart parser turns every `a[b]` name into an
 * array under `a`, which loses the nesting the contract's bodies need (docs/decisions.md).
 * The decoders (qs, busboy) load on the first form: evaluating them took about 20 ms of every cold
 * start, JSON sends' too (decision 107).
 *
 * A list the body schema has at its top level may be given once under its plain name: a form
 * cannot say "a list of one" otherwise than `trackingTags[]=promo`, and clients that write lists
 * as repeated names (Python's requests, curl's `-d` twice) write `trackingTags=promo` for one.
 */
export function formBodyParser(bodySchema?: z.ZodMiniType): middy.MiddlewareObj<APIGatewayProxyEvent, APIGatewayProxyResult, Error, HttpContext> {
  const lists = listFieldsOf(bodySchema);
  return {
    before: async (request) => {
      const { event } = request;
      if (typeof event.body !== 'string') return;
      const contentType = event.headers?.['content-type'] ?? '';
      const raw = event.isBase64Encoded ? Buffer.from(event.body, 'base64') : Buffer.from(event.body, 'utf8');
      let fields: Record<string, unknown>;
      if (/^application\/x-www-form-urlencoded\b/i.test(contentType)) {
        const { expand } = await import('./form-decoding');
        fields = expand(raw.toString('utf8'));
      } else if (/^multipart\/form-data\b/i.test(contentType)) {
        const { expand, multipartFields } = await import('./form-decoding');
        fields = expand(new URLSearchParams(await multipartFields(raw, contentType)).toString());
      } else {
        return;
      }
      for (const name of lists) if (typeof fields[name] === 'string') fields[name] = [fields[name]];
      (event as { body: unknown }).body = fields;
    },
  };
}

/** The top-level members of an object schema that are lists, optional or not. */
function listFieldsOf(schema: z.ZodMiniType | undefined): string[] {
  const shape = (schema?._zod.def as { shape?: Record<string, z.ZodMiniType> } | undefined)?.shape ?? {};
  return Object.entries(shape)
    .filter(([, field]) => {
      let def = field._zod.def as { type: string; innerType?: z.ZodMiniType };
      while ((def.type === 'optional' || def.type === 'default') && def.innerType) def = def.innerType._zod.def;
      return def.type === 'array';
    })
    .map(([name]) => name);
}
