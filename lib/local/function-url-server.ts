import { createServer, type Server } from 'node:http';
import type { APIGatewayProxyResult, Context, LambdaFunctionURLEvent } from 'aws-lambda';
import { lambdaContext } from './api-gateway-event';
import { functionUrlEvent } from './function-url-event';

export type FunctionUrlHandler = (event: LambdaFunctionURLEvent, context: Context) => Promise<APIGatewayProxyResult>;

/** Bodies Lambda hands a function URL's function as text; any other comes base64-encoded. */
const TEXT_CONTENT = /^\s*(text\/|application\/(json|xml|javascript|x-www-form-urlencoded)\b|[^;]*\+(json|xml)\b)/i;

/**
 * Plays a public Lambda function URL for one function (the webhook's, with
 * webhookFrontDoor=functionUrl): every method and path reaches the function as payload 2.0, and
 * its result is the answer; a function that throws gets Lambda's bare 502.
 */
export function createFunctionUrlServer(functionName: string, handler: FunctionUrlHandler, onError: (error: unknown) => void): Server {
  return createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const url = new URL(request.url ?? '/', 'http://localhost');
      const headers: [string, string][] = [];
      for (let i = 0; i < request.rawHeaders.length; i += 2) headers.push([request.rawHeaders[i]!, request.rawHeaders[i + 1]!]);
      const body = Buffer.concat(chunks);
      const event = functionUrlEvent({
        method: request.method ?? 'GET',
        path: url.pathname,
        rawQueryString: url.search.slice(1),
        headers,
        body,
        base64: !TEXT_CONTENT.test(request.headers['content-type'] ?? ''),
        ...(request.headers.host ? { host: request.headers.host } : {}),
        ...(request.socket.remoteAddress ? { sourceIp: request.socket.remoteAddress } : {}),
      });
      handler(event, lambdaContext(functionName))
        .then((result) => {
          response.writeHead(result.statusCode, Object.fromEntries(Object.entries(result.headers ?? {}).map(([name, value]) => [name, String(value)])));
          response.end(result.isBase64Encoded ? Buffer.from(result.body, 'base64') : result.body);
        })
        .catch((error: unknown) => {
          onError(error);
          if (!response.headersSent) response.writeHead(502, { 'content-type': 'application/json' });
          response.end(JSON.stringify({ Message: 'Internal Server Error' }));
        });
    });
  });
}
