import type { APIGatewayProxyEvent } from 'aws-lambda';
import type { z } from 'zod';
import { ValidationError } from '../shared/errors';

/** A short, human sentence per zod issue, prefixed with where it was found. */
export function describeIssues(where: string, error: z.ZodError): string {
  return error.issues
    .slice(0, 10)
    .map((issue) => `${[where, ...issue.path.map(String)].join('.')}: ${issue.message}`)
    .join('; ');
}

export function parseWith<S extends z.ZodType>(schema: S, value: unknown, where: string): z.infer<S> {
  const result = schema.safeParse(value);
  if (!result.success) throw new ValidationError(describeIssues(where, result.error));
  return result.data;
}

/**
 * Query parameters from the multi-value map (REST API events keep repeated parameters there):
 * a parameter given once is a string, a repeated one an array. Schemas that take arrays accept
 * both; scalar parameters given twice fail validation instead of silently taking one value.
 */
export function queryOf(event: Pick<APIGatewayProxyEvent, 'multiValueQueryStringParameters' | 'queryStringParameters'>): Record<string, string | string[]> {
  const multi = event.multiValueQueryStringParameters ?? {};
  const single = event.queryStringParameters ?? {};
  const query: Record<string, string | string[]> = {};
  for (const name of new Set([...Object.keys(multi), ...Object.keys(single)])) {
    const values = multi[name] ?? (single[name] !== undefined ? [single[name]] : []);
    query[name] = values.length === 1 ? values[0]! : values;
  }
  return query;
}
