import { randomUUID } from 'node:crypto';
import type { LambdaFunctionURLEvent } from 'aws-lambda';

const URL_ID = 'a1b2c3d4e5f6g7h8i9j0k1l2m3n4o5p6';

export interface FunctionUrlRequest {
  method: string;
  path: string;
  /** As the client wrote it after `?`, undecoded. */
  rawQueryString?: string;
  /** By name, or as name/value pairs in arrival order (a repeated name is joined with commas). */
  headers?: Record<string, string> | [string, string][];
  body?: string | Buffer;
  /** Send `body` base64-encoded, as Lambda does for a body it does not take for text. */
  base64?: boolean;
  /** The URL's host; a function URL's own by default. */
  host?: string;
  sourceIp?: string;
  requestId?: string;
}

/**
 * The event a public (auth type NONE) Lambda function URL hands its function, as Lambda documents
 * it (https://docs.aws.amazon.com/lambda/latest/dg/urls-invocation.html#urls-payloads, payload 2.0):
 * lower-cased headers with repeated values joined by commas, the query both raw and as a map whose
 * repeated parameters are joined by commas, `accountId` "anonymous", and no `body` when none came.
 * The local runtime's function URL (./function-url-server.ts) and the tests build it here.
 */
export function functionUrlEvent(request: FunctionUrlRequest): LambdaFunctionURLEvent {
  const host = request.host ?? `${URL_ID}.lambda-url.ap-southeast-3.on.aws`;
  const sourceIp = request.sourceIp ?? '173.252.127.113';
  const headers: Record<string, string> = {
    host,
    'x-amzn-tls-version': 'TLSv1.3',
    'x-forwarded-proto': 'https',
    'x-forwarded-port': '443',
    'x-forwarded-for': sourceIp,
    'x-amzn-trace-id': 'Root=1-6745d2a0-3f2b0c1e5d6a4b7c8d9e0f1a',
    'user-agent': 'facebookexternalua',
  };
  const given = Array.isArray(request.headers) ? request.headers : Object.entries(request.headers ?? {});
  const joined = new Map<string, string>();
  for (const [name, value] of given) {
    const key = name.toLowerCase();
    joined.set(key, joined.has(key) ? `${joined.get(key)},${value}` : value);
  }
  Object.assign(headers, Object.fromEntries(joined));
  const body = typeof request.body === 'string' ? Buffer.from(request.body) : request.body;
  if (body?.length) headers['content-length'] = String(body.length);
  const rawQueryString = request.rawQueryString ?? '';
  const query = new Map<string, string[]>();
  for (const [name, value] of new URLSearchParams(rawQueryString)) query.set(name, [...(query.get(name) ?? []), value]);
  const now = new Date();
  return {
    version: '2.0',
    routeKey: '$default',
    rawPath: request.path,
    rawQueryString,
    headers,
    ...(query.size ? { queryStringParameters: Object.fromEntries([...query].map(([name, values]) => [name, values.join(',')])) } : {}),
    requestContext: {
      accountId: 'anonymous',
      apiId: host.split('.')[0]!,
      domainName: host,
      domainPrefix: host.split('.')[0]!,
      http: { method: request.method, path: request.path, protocol: 'HTTP/1.1', sourceIp, userAgent: headers['user-agent']! },
      requestId: request.requestId ?? randomUUID(),
      routeKey: '$default',
      stage: '$default',
      time: commonLogTime(now),
      timeEpoch: now.getTime(),
    },
    ...(body?.length ? { body: request.base64 ? body.toString('base64') : body.toString('utf8') } : {}),
    isBase64Encoded: !!body?.length && (request.base64 ?? false),
  };
}

/** `12/Mar/2020:19:03:58 +0000`, the request time as Lambda's function URL payload gives it (from `Sat, 12 Mar 2020 19:03:58 GMT`). */
function commonLogTime(at: Date): string {
  const [, day, month, year, time] = at.toUTCString().split(' ');
  return `${day}/${month}/${year}:${time} +0000`;
}
