import { randomUUID } from 'node:crypto';
import type { APIGatewayProxyEvent } from 'aws-lambda';
import { BINARY_MEDIA_TYPES } from '../routes';

export interface ApiRequest {
  method: string;
  /** The resource path as called, e.g. `/v1/messages/4f1c…`. */
  path: string;
  /** The matched route's template, e.g. `/v1/messages/{dispatchId}`. */
  resource: string;
  pathParameters?: Record<string, string> | null;
  /** Header name/value pairs in arrival order; repeated names allowed. */
  headers?: [string, string][];
  /** Decoded query name/value pairs in order; repeated names allowed. */
  query?: [string, string][];
  body?: Buffer | string;
  sourceIp?: string;
  requestId?: string;
}

/**
 * A REST API (v1) proxy event as API Gateway builds it: last-value and multi-value maps for
 * headers and query, null for absent parts, binary media types base64-encoded. The local
 * server, the tests' event factory and the webhook's function URL front door
 * (lambdas/handlers/whatsapp-callbacks.ts) all build events here, so they cannot disagree.
 */
export function apiGatewayEvent(request: ApiRequest): APIGatewayProxyEvent {
  // Maps, then own properties: a client's `constructor` or `__proto__` parameter is data, as in
  // the JSON API Gateway hands Lambda, never a lookup into Object.prototype.
  const multiValueHeaders = Object.fromEntries(grouped(request.headers ?? []));
  const headers = Object.fromEntries(Object.entries(multiValueHeaders).map(([name, values]) => [name, values.at(-1)!]));
  const multiValueQuery = Object.fromEntries(grouped(request.query ?? []));
  const hasQuery = Object.keys(multiValueQuery).length > 0;

  const headerValue = (wanted: string) => Object.entries(headers).find(([name]) => name.toLowerCase() === wanted)?.[1];
  const contentType = (headerValue('content-type') ?? '').split(';')[0]!.trim().toLowerCase();
  const body = typeof request.body === 'string' ? Buffer.from(request.body, 'utf8') : request.body;
  const isBase64Encoded = !!body?.length && (BINARY_MEDIA_TYPES as readonly string[]).includes(contentType);

  return {
    resource: request.resource,
    path: request.path,
    httpMethod: request.method,
    headers,
    multiValueHeaders,
    queryStringParameters: hasQuery ? Object.fromEntries(Object.entries(multiValueQuery).map(([k, v]) => [k, v.at(-1)!])) : null,
    multiValueQueryStringParameters: hasQuery ? multiValueQuery : null,
    pathParameters: request.pathParameters ?? null,
    stageVariables: null,
    body: !body?.length ? null : isBase64Encoded ? body.toString('base64') : body.toString('utf8'),
    isBase64Encoded,
    requestContext: {
      accountId: '000000000000',
      apiId: 'local',
      authorizer: null,
      domainName: headerValue('host') ?? '127.0.0.1',
      domainPrefix: 'local',
      httpMethod: request.method,
      identity: {
        accessKey: null,
        accountId: null,
        apiKey: null,
        apiKeyId: null,
        caller: null,
        clientCert: null,
        cognitoAuthenticationProvider: null,
        cognitoAuthenticationType: null,
        cognitoIdentityId: null,
        cognitoIdentityPoolId: null,
        principalOrgId: null,
        sourceIp: request.sourceIp ?? '127.0.0.1',
        user: null,
        userAgent: headerValue('user-agent') ?? null,
        userArn: null,
      },
      path: request.path,
      protocol: 'HTTP/1.1',
      requestId: request.requestId ?? randomUUID(),
      requestTimeEpoch: Date.now(),
      resourceId: 'local',
      resourcePath: request.resource,
      stage: 'local',
    },
  };
}

function grouped(pairs: [string, string][]): Map<string, string[]> {
  const groups = new Map<string, string[]>();
  for (const [name, value] of pairs) groups.set(name, [...(groups.get(name) ?? []), value]);
  return groups;
}
