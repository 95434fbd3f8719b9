import type { APIGatewayProxyEvent, StreamifyHandler } from 'aws-lambda';
import type { Principal } from '../domain/api-keys/authenticate';
import type { Scope } from '../shared/scopes';
import { httpStack, type HttpRequest, type RequestSchemas, type ResponseBody, type Route, type StackOptions } from './http-stack';
import { apiKeyAuth } from './middleware/api-key-auth';
import type { HttpResult } from './responses';

export type { HttpRequest, RequestSchemas, ResponseBody, StackOptions } from './http-stack';

/** A buffered route's handler: `(event, context)`, answering the whole response. */
export type BufferedHandler = ReturnType<typeof httpStack>;
/**
 * A streamed route's handler (`streamingResponse` given, `streaming` in the route table), as Lambda
 * response streaming calls it: `(event, responseStream, context)`, writing the body to the stream.
 * Called as `(event, context)` it has nowhere to write, so its type refuses that.
 */
export type StreamedHandler = StreamifyHandler<APIGatewayProxyEvent, void>;

export interface AuthorizedRequest<S extends RequestSchemas = RequestSchemas> extends HttpRequest<S> {
  principal: Principal;
}

/**
 * An authenticated route: the shared stack (lambdas/http/http-stack.ts) with the API key and scope
 * check in it. Public routes use public-http-handler.ts, which never imports this module, so their
 * bundles carry neither the key lookup nor the DynamoDB client behind it.
 */
export function httpHandler<S extends RequestSchemas>(
  route: Route<Scope>,
  schemas: S,
  handle: (request: AuthorizedRequest<S>) => Promise<HttpResult<ResponseBody<S>>>,
  options: StackOptions & Required<Pick<StackOptions, 'streamingResponse'>>,
): StreamedHandler;
export function httpHandler<S extends RequestSchemas>(
  route: Route<Scope>,
  schemas: S,
  handle: (request: AuthorizedRequest<S>) => Promise<HttpResult<ResponseBody<S>>>,
  options?: StackOptions,
): BufferedHandler;
export function httpHandler<S extends RequestSchemas>(
  route: Route<Scope>,
  schemas: S,
  handle: (request: AuthorizedRequest<S>) => Promise<HttpResult<ResponseBody<S>>>,
  options: StackOptions = {},
): BufferedHandler | StreamedHandler {
  return httpStack(route, schemas, options, apiKeyAuth(route.scope), (request, context) => {
    // The auth middleware always sets the principal on scoped routes; this guards a miswired stack.
    if (!context.principal) throw new Error('Route reached its handler without a principal');
    return handle({ ...request, principal: context.principal });
  });
}
