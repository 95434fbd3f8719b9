import { httpStack, type HttpRequest, type RequestSchemas, type ResponseBody, type Route, type StackOptions } from './http-stack';
import type { HttpResult } from './responses';

export type { HttpRequest, ResponseBody } from './http-stack';

/** The shared stack without authentication, for `GET /health` and provider webhooks. */
export function publicHttpHandler<S extends RequestSchemas>(
  route: Route<null>,
  schemas: S,
  handle: (request: HttpRequest<S>) => Promise<HttpResult<ResponseBody<S>>>,
  options: StackOptions = {},
) {
  return httpStack(route, schemas, options, undefined, (request) => handle(request));
}
