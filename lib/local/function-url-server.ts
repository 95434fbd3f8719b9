import { createServer, type Server } from 'node:http';
import type { APIGatewayProxyResult, Context, LambdaFunctionURLEvent } from 'aws-lambda';
import { lambdaContext } from './api-gateway-event';
import { routeTimeoutSeconds } from '../../lambdas/routes';
import { functionUrlEvent } from './function-url-event';
import { headerPairs, readBody, send } from './http-server';

export type FunctionUrlHandler = (event: LambdaFunctionURLEvent, context: Context) => Promise<APIGatewayProxyResult>;

/** Lambda's limit on a function URL's request payload. */
const MAX_BODY_BYTES = 6 * 1024 * 1024;

/** Bodies Lambda hands a function URL's function as text; any other comes base64-encoded. */
const TEXT_CONTENT = /^\s*(text\/|application\/(json|xml|javascript|x-www-form-urlencoded)\b|[^;]*\+(json|xml)\b)/i;

/**
 * Plays a public Lambda function URL for one function (the webhook's, with
 * webhookFrontDoor=functionUrl): every method and path reaches the function as payload 2.0, and
 * its result is the answer; a body over the limit gets Lambda's 413, a function that throws its 502.
 */
export function createFunctionUrlServer(functionName: string, handler: FunctionUrlHandler, onError: (error: unknown) => void): Server {
  return createServer((request, response) => {
    void (async () => {
      const body = await readBody(request, MAX_BODY_BYTES);
      if (!body) return send(response, lambdaError(413, 'Request must be smaller than 6291456 bytes for the InvokeFunction operation'));
      const url = new URL(request.url ?? '/', 'http://localhost');
      const event = functionUrlEvent({
        method: request.method ?? 'GET',
        path: url.pathname,
        rawQueryString: url.search.slice(1),
        headers: headerPairs(request),
        body,
        base64: !TEXT_CONTENT.test(request.headers['content-type'] ?? ''),
        ...(request.headers.host ? { host: request.headers.host } : {}),
        ...(request.socket.remoteAddress ? { sourceIp: request.socket.remoteAddress } : {}),
      });
      send(response, await handler(event, lambdaContext(functionName, routeTimeoutSeconds({}) * 1000)));
    })().catch((error: unknown) => {
      onError(error);
      if (!response.headersSent) send(response, lambdaError(502, 'Internal Server Error'));
    });
  });
}

/** Lambda's own answer when the function could not give one. */
const lambdaError = (statusCode: number, message: string): APIGatewayProxyResult => ({ statusCode, headers: { 'content-type': 'application/json' }, body: JSON.stringify({ Message: message }) });
