import type { APIGatewayProxyEvent } from 'aws-lambda';
import type * as z from '../shared/zod';
import { ValidationError } from '../shared/errors';
import { headerLinesSent, type SentHeaderLines } from './header-lines';
import { hasLoneSurrogate, shortened, someNames, withoutLoneSurrogates } from '../shared/unicode-text';

/** At most this many issues, and (`someNames`) five unknown fields, are named: an error stays small whatever was sent. */
const MAX_ISSUES = 5;
const MAX_NAME_LENGTH = 64;

/** zod's own wording, `Unrecognized keys: "a", "b"`, but naming at most five of them. */
const unknownKeys = (keys: string[]) => `Unrecognized key${keys.length > 1 ? 's' : ''}: ${someNames(keys, { quote: '"' })}`;

/** A short, human sentence per zod issue, prefixed with where it was found. */
export function describeIssues(where: string, error: z.core.$ZodError): string {
  const sentences = error.issues.slice(0, MAX_ISSUES).map((issue) => {
    const path = [where, ...issue.path.map((segment) => shortened(String(segment), MAX_NAME_LENGTH))].join('.');
    // zod's own message for unknown keys names every one of them.
    const message = issue.code === 'unrecognized_keys' ? unknownKeys(issue.keys) : issue.message;
    return `${path}: ${message}`;
  });
  const more = error.issues.length - MAX_ISSUES;
  return more > 0 ? `${sentences.join('; ')}; and ${more} more` : sentences.join('; ');
}

/** Where the value holds a string that is not Unicode text: a lone surrogate, which JSON's `\uD800` escape can carry. */
function illFormedStringAt(value: unknown, path: string[] = [], depth = 0): string[] | undefined {
  if (typeof value === 'string') return hasLoneSurrogate(value) ? path : undefined;
  if (typeof value !== 'object' || value === null || depth > 32) return undefined;
  for (const [key, inner] of Object.entries(value)) {
    const found = hasLoneSurrogate(key) ? [...path, key] : illFormedStringAt(inner, [...path, key], depth + 1);
    if (found) return found;
  }
  return undefined;
}

/**
 * The value as the schema reads it. A string that is not Unicode text (a lone surrogate) is refused,
 * naming where, unless `repair` is given: a signed route reads its provider's body that way
 * (`providerBody`), and only such a body pays for the repair.
 */
export function parseWith<S extends z.ZodMiniType>(schema: S, value: unknown, where: string, repair?: (value: unknown) => unknown): z.infer<S> {
  const illFormed = illFormedStringAt(value);
  // The path is named with U+FFFD in place of any lone surrogate, so the error body is valid text itself.
  if (illFormed && !repair) throw new ValidationError(`${[where, ...illFormed.map((name) => withoutLoneSurrogates(shortened(name, MAX_NAME_LENGTH)))].join('.')}: is not valid Unicode text (a lone UTF-16 surrogate)`);
  const result = schema.safeParse(illFormed && repair ? repair(value) : value);
  if (!result.success) throw new ValidationError(describeIssues(where, result.error));
  return result.data;
}

/**
 * Query parameters from the multi-value map (REST API events keep repeated parameters there):
 * a parameter given once is a string, a repeated one an array. Schemas that take arrays accept
 * both; scalar parameters given twice fail validation instead of silently taking one value.
 * `name[]=a&name[]=b`, the bracket form many HTTP clients write an array in (as the form bodies
 * take it), is the repeated `name`; the two forms mixed add up.
 */
export function queryOf(event: Pick<APIGatewayProxyEvent, 'multiValueQueryStringParameters' | 'queryStringParameters'>): Record<string, string | string[]> {
  const multi = event.multiValueQueryStringParameters ?? {};
  const single = event.queryStringParameters ?? {};
  const collected = new Map<string, string[]>();
  for (const name of new Set([...Object.keys(multi), ...Object.keys(single)])) {
    const values = Object.hasOwn(multi, name) ? (multi[name] ?? []) : Object.hasOwn(single, name) && single[name] !== undefined ? [single[name]] : [];
    const key = name.endsWith('[]') && name.length > 2 ? name.slice(0, -2) : name;
    collected.set(key, [...(collected.get(key) ?? []), ...values]);
  }
  // Own properties, as JSON.parse makes them: a parameter named `__proto__` is one the route does not know, not a prototype.
  return Object.fromEntries([...collected].map(([name, values]) => [name, values.length === 1 ? values[0]! : values]));
}

/**
 * The headers a route reads (those its schema keeps), each sent once. API Gateway hands the
 * function a repeated header's last value: with two `Idempotency-Key` lines the request would be
 * keyed by whichever came last, and a retry with the other would be a second send. A repeated
 * `X-API-Key` is refused the same way (api-key-header.ts).
 */
export function headersOf<S extends z.ZodMiniType>(schema: S, event: SentHeaderLines & Pick<APIGatewayProxyEvent, 'headers'>): z.infer<S> {
  const headers = parseWith(schema, event.headers ?? {}, 'headers');
  for (const name of Object.keys(headers as object)) {
    const lines = headerLinesSent(event, name).length;
    if (lines > 1) throw new ValidationError(`headers.${name}: send it once, not ${lines} times`);
  }
  return headers;
}
