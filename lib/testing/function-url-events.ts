import { randomUUID } from 'node:crypto';
import type { LambdaFunctionURLEvent } from 'aws-lambda';

const URL_ID = 'a1b2c3d4e5f6g7h8i9j0k1l2m3n4o5p6';
const DOMAIN = `${URL_ID}.lambda-url.ap-southeast-3.on.aws`;

export interface FunctionUrlRequest {
  method: string;
  path: string;
  /** As the client wrote it after `?`, undecoded. */
  rawQueryString?: string;
  headers?: Record<string, string>;
  body?: string;
  /** Send `body` base64-encoded, as Lambda does for a body it does not take for text. */
  base64?: boolean;
}

/**
 * The event a public (auth type NONE) Lambda function URL hands its function, as Lambda documents
 * it (https://docs.aws.amazon.com/lambda/latest/dg/urls-invocation.html#urls-payloads, payload 2.0):
 * lower-cased headers with repeated values joined by commas, the query both raw and as a map whose
 * repeated parameters are joined by commas, `accountId` "anonymous", and no `body` when none came.
 */
export function functionUrlEvent(request: FunctionUrlRequest): LambdaFunctionURLEvent {
  const headers: Record<string, string> = {
    host: DOMAIN,
    'x-amzn-tls-version': 'TLSv1.3',
    'x-forwarded-proto': 'https',
    'x-forwarded-port': '443',
    'x-forwarded-for': '173.252.127.113',
    'x-amzn-trace-id': 'Root=1-6745d2a0-3f2b0c1e5d6a4b7c8d9e0f1a',
    'user-agent': 'facebookexternalua',
    ...Object.fromEntries(Object.entries(request.headers ?? {}).map(([name, value]) => [name.toLowerCase(), value])),
  };
  if (request.body !== undefined) headers['content-length'] = String(Buffer.byteLength(request.body));
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
      apiId: URL_ID,
      domainName: DOMAIN,
      domainPrefix: URL_ID,
      http: { method: request.method, path: request.path, protocol: 'HTTP/1.1', sourceIp: '173.252.127.113', userAgent: 'facebookexternalua' },
      requestId: randomUUID(),
      routeKey: '$default',
      stage: '$default',
      time: now.toUTCString(),
      timeEpoch: now.getTime(),
    },
    ...(request.body !== undefined ? { body: request.base64 ? Buffer.from(request.body).toString('base64') : request.body } : {}),
    isBase64Encoded: request.base64 ?? false,
  };
}
