import type { Principal } from '../domain/api-keys/authenticate';
import type { Scope } from '../shared/scopes';
import { httpStack, type HttpRequest, type RequestSchemas, type ResponseBody, type Route, type StackOptions } from './http-stack';
import { apiKeyAuth } from './middleware/api-key-auth';
import type { HttpResult } from './responses';

export type { HttpRequest, RequestSchemas, ResponseBody, StackOptions } from './http-stack';

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
  options: StackOptions = {},
) {
  return httpStack(route, schemas, options, apiKeyAuth(route.scope), (request, context) => {
    // The auth middleware always sets the principal on scoped routes; this guards a miswired stack.
    if (!context.principal) throw new Error('Route reached its handler without a principal');
    return handle({ ...request, principal: context.principal });
  });
}
