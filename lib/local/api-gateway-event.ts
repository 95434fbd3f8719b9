import { randomUUID } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import type { APIGatewayProxyEvent, Context } from 'aws-lambda';

/** Media types API Gateway is configured to pass base64-encoded (the stack's binaryMediaTypes). */
export const BINARY_MEDIA_TYPES = ['multipart/form-data'];

/** A REST API (v1) proxy event for a request, as API Gateway would build it. */
export function toApiGatewayEvent(
  request: IncomingMessage,
  url: URL,
  body: Buffer,
  match: { resource: string; pathParameters: Record<string, string> | null },
): APIGatewayProxyEvent {
  const headers: Record<string, string> = {};
  const multiValueHeaders: Record<string, string[]> = {};
  for (let i = 0; i < request.rawHeaders.length; i += 2) {
    const name = request.rawHeaders[i]!;
    const value = request.rawHeaders[i + 1]!;
    headers[name] = value;
    (multiValueHeaders[name] ??= []).push(value);
  }
  headers['X-Forwarded-Proto'] ??= 'http';
  multiValueHeaders['X-Forwarded-Proto'] ??= ['http'];

  const multiValueQuery: Record<string, string[]> = {};
  for (const [name, value] of url.searchParams) (multiValueQuery[name] ??= []).push(value);
  const hasQuery = Object.keys(multiValueQuery).length > 0;

  const contentType = (request.headers['content-type'] ?? '').split(';')[0]!.trim().toLowerCase();
  const isBase64Encoded = body.length > 0 && BINARY_MEDIA_TYPES.includes(contentType);
  const method = request.method ?? 'GET';

  return {
    resource: match.resource,
    path: url.pathname,
    httpMethod: method,
    headers,
    multiValueHeaders,
    queryStringParameters: hasQuery ? Object.fromEntries(Object.entries(multiValueQuery).map(([k, v]) => [k, v.at(-1)!])) : null,
    multiValueQueryStringParameters: hasQuery ? multiValueQuery : null,
    pathParameters: match.pathParameters,
    stageVariables: null,
    body: body.length === 0 ? null : isBase64Encoded ? body.toString('base64') : body.toString('utf8'),
    isBase64Encoded,
    requestContext: {
      accountId: '000000000000',
      apiId: 'local',
      authorizer: null,
      domainName: request.headers.host ?? '127.0.0.1',
      domainPrefix: 'local',
      httpMethod: method,
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
        sourceIp: request.socket.remoteAddress ?? '127.0.0.1',
        user: null,
        userAgent: request.headers['user-agent'] ?? null,
        userArn: null,
      },
      path: url.pathname,
      protocol: `HTTP/${request.httpVersion}`,
      requestId: randomUUID(),
      requestTimeEpoch: Date.now(),
      resourceId: 'local',
      resourcePath: match.resource,
      stage: 'local',
    },
  };
}

/** A Lambda context for one in-process invocation. */
export function lambdaContext(functionName: string, timeoutMs = 29_000): Context {
  const deadline = Date.now() + timeoutMs;
  const awsRequestId = randomUUID();
  return {
    callbackWaitsForEmptyEventLoop: false,
    functionName,
    functionVersion: '$LATEST',
    invokedFunctionArn: `arn:aws:lambda:local:000000000000:function:${functionName}`,
    memoryLimitInMB: '512',
    awsRequestId,
    logGroupName: `/aws/lambda/${functionName}`,
    logStreamName: 'local',
    getRemainingTimeInMillis: () => Math.max(0, deadline - Date.now()),
    done: () => undefined,
    fail: () => undefined,
    succeed: () => undefined,
  };
}
