import { Readable } from 'node:stream';
import middy, { type PluginExecutionMode } from '@middy/core';
import httpHeaderNormalizer from '@middy/http-header-normalizer';
import { injectLambdaContext } from '@aws-lambda-powertools/logger/middleware';
import type { APIGatewayProxyEvent, APIGatewayProxyResult } from 'aws-lambda';
import type * as z from '../shared/zod';
import type { RouteDefinition } from '../routes';
import { answeredBy } from '../shared/answered-by';
import { ValidationError } from '../shared/errors';
import { logger } from '../shared/logger';
import { flushMetrics } from '../shared/metrics';
import { withinConflictDeadline } from '../shared/conflict-deadline';
import type { Scope } from '../shared/scopes';
import { headersOf, parseWith, queryOf } from './input';
import { requestIdOf } from './request-id';
import { errorMapper } from './middleware/error-mapper';
import type { HttpContext } from './middleware/http-context';
import { JSON_CONTENT_TYPE, type HttpResult } from './responses';

/**
 * zod schemas for the parts of a request a route reads (parts without one are not read), and for
 * the body it answers with. The response schema is not run: it types what the handler may return
 * and, with the request schemas, generates the OpenAPI document (lambdas/openapi).
 */
export interface RequestSchemas {
  path?: z.ZodMiniType;
  query?: z.ZodMiniType;
  body?: z.ZodMiniType;
  headers?: z.ZodMiniType;
  response?: z.ZodMiniType;
}

type Parsed<S extends RequestSchemas, K extends keyof RequestSchemas> = S[K] extends z.ZodMiniType ? z.infer<S[K]> : undefined;

/** The success body a route's handler must return: its documented response, or anything if it has none. */
export type ResponseBody<S extends RequestSchemas> = S['response'] extends z.ZodMiniType ? z.output<S['response']> : unknown;

/** What a plain handler receives: validated input and who is calling. No API Gateway shapes. */
export interface HttpRequest<S extends RequestSchemas = RequestSchemas> {
  path: Parsed<S, 'path'>;
  query: Parsed<S, 'query'>;
  body: Parsed<S, 'body'>;
  headers: Parsed<S, 'headers'>;
  requestId: string;
  /** Absolute URL of the API stage, for links such as `statusUrl`. */
  baseUrl: string;
}

export type Route<TScope> = Pick<RouteDefinition, 'body' | 'signed' | 'streaming'> & { scope: TScope };

export type Middleware = middy.MiddlewareObj<APIGatewayProxyEvent, APIGatewayProxyResult, Error, HttpContext>;

/**
 * What a route brings beyond the shared stack, so only its bundle carries it: the form parser
 * (and its dependencies) for a route that accepts form or multipart bodies, the signature check
 * (and the credentials it needs) for a signed route, the streaming execution mode
 * (lambdas/http/streaming-response.ts) for a streaming route.
 */
export interface StackOptions {
  formBodyParser?: (body?: z.ZodMiniType) => Middleware;
  /** A route with a body: the middlewares that read it (./middleware/body-reading.ts), carried only by the bundles that need them. */
  bodyReading?: (route: Pick<RouteDefinition, 'signed'> & { body: NonNullable<RouteDefinition['body']> }) => Middleware[];
  signatureCheck?: () => Middleware;
  /** A signed route's repair of a parsed body holding text that is not Unicode: the provider's, proven by its signature, so read rather than refused. */
  providerBody?: (body: unknown) => unknown;
  streamingResponse?: PluginExecutionMode;
}

/**
 * The caller's workspace and key on the request's log lines: reached only when the key check
 * answered within the request's time, so a check that outlasted its request (answered 503 at the
 * deadline, and still running) never names its caller on the container's next request.
 */
const callerLogKeys = (): Middleware => ({
  before: ({ context }) => void (context.principal && logger.appendKeys({ workspaceId: context.principal.workspaceId, apiKeyId: context.principal.keyId })),
});

/**
 * The one middleware stack every HTTP route runs, in this order: header normalisation →
 * Lambda context on the logger → metrics flush (after everything else, errors too) → error mapping
 * (its onError sees every later failure) →
 * API key and scope (given by http-handler.ts on authenticated routes), or a signed route's
 * signature over the raw body → Content-Type guard → JSON and form body parsing (a route without a body: refusing one) → zod validation.
 */
export function httpStack<S extends RequestSchemas>(
  route: Route<Scope | null>,
  schemas: S,
  options: StackOptions,
  auth: Middleware | undefined,
  handle: (request: HttpRequest<S>, context: HttpContext) => Promise<HttpResult<ResponseBody<S>>>,
) {
  if (route.streaming && !options.streamingResponse) throw new Error('This route streams its response: pass streamingResponse to its handler');
  const chain = middy<APIGatewayProxyEvent, APIGatewayProxyResult, Error, HttpContext>(route.streaming ? { executionMode: options.streamingResponse } : {})
    // The header names as sent, before the normaliser folds two that differ only in case into one (api-key-header.ts counts them).
    .use({ before: (request: middy.Request<APIGatewayProxyEvent, APIGatewayProxyResult, Error, HttpContext>) => void Object.assign(request.event, { rawMultiValueHeaders: request.event.multiValueHeaders }) })
    .use(httpHeaderNormalizer())
    // Never the whole event, whatever POWERTOOLS_LOGGER_LOG_EVENT says: it carries the caller's
    // X-API-Key header and customers' message text.
    .use(injectLambdaContext(logger, { resetKeys: true, logEvent: false }))
    .use(flushMetrics())
    .use({ before: (request: middy.Request<APIGatewayProxyEvent, APIGatewayProxyResult, Error, HttpContext>) => void logger.appendKeys({ requestId: requestIdOf(request.event, request.context) }) })
    .use(errorMapper());
  if (auth) chain.use(withinFunctionTime(auth)).use(callerLogKeys());
  if (route.signed) {
    if (!options.signatureCheck) throw new Error('This route is signed: pass signatureCheck to its handler');
    chain.use(withinFunctionTime(options.signatureCheck()));
  }
  if (!route.body) {
    chain.use(noBody());
  } else {
    if (!options.bodyReading) throw new Error('This route reads a body: pass bodyReading to its handler');
    for (const middleware of options.bodyReading({ ...route, body: route.body })) chain.use(middleware);
    if (route.body.some((encoding) => encoding !== 'json')) {
      if (!options.formBodyParser) throw new Error('This route accepts form bodies: pass formBodyParser to its handler');
      chain.use(options.formBodyParser(schemas.body));
    }
  }
  return chain.handler(async (event: APIGatewayProxyEvent, context: HttpContext) => {
    const requestId = requestIdOf(event, context);
    const request: HttpRequest<S> = {
      path: (schemas.path ? parseWith(schemas.path, event.pathParameters ?? {}, 'path') : undefined) as Parsed<S, 'path'>,
      query: (schemas.query ? parseWith(schemas.query, queryOf(event), 'query') : undefined) as Parsed<S, 'query'>,
      body: (schemas.body ? parseWith(schemas.body, event.body, 'body', options.providerBody) : undefined) as Parsed<S, 'body'>,
      headers: (schemas.headers ? headersOf(schemas.headers, event) : undefined) as Parsed<S, 'headers'>,
      requestId,
      baseUrl: baseUrlOf(event),
    };
    const remaining = context.getRemainingTimeInMillis?.();
    const result = await (remaining === undefined ? handle(request, context) : withinConflictDeadline(Date.now() + remaining - CONFLICTS_ANSWER_MS, () => handle(request, context)));
    if (result.statusCode === 204) return { statusCode: 204, headers: { 'x-request-id': requestId, ...result.headers }, body: '' };
    const headers = { 'content-type': result.contentType ?? JSON_CONTENT_TYPE, 'x-request-id': requestId, ...result.headers };
    // A streaming route's body is a Readable that Middy pipes to the response stream as it comes.
    if (result.body instanceof Readable) return { statusCode: result.statusCode, headers, body: result.body as unknown as string };
    return { statusCode: result.statusCode, headers, body: result.contentType ? String(result.body) : JSON.stringify(result.body) };
  });
}

/**
 * What a request's waits for conflicts leave of the function's time (`withinConflictDeadline`): a
 * last try still in flight, then the 503 and the metrics' flush. A WhatsApp webhook POST with
 * several contended items gives up on them together, not each after its own 8 s.
 */
const CONFLICTS_ANSWER_MS = 1_000;

/** What a before-middleware leaves of the function's time to answer in, as Middy's early timeout does for the handler. */
const BEFORE_ANSWER_MS = 100;

/**
 * Bounds a before-middleware that waits on a dependency (the key's lookup, the app secret) by the
 * function's time. Middy's early answer covers only the handler: a lookup hung past the function's
 * time (its table calls' own timeouts, retried, can outlast it) ended as Lambda's timeout, which
 * API Gateway answers 502 with a body of its own. Bounded, it is a dependency that did not answer:
 * 503, nothing was done, retry.
 */
function withinFunctionTime(middleware: Middleware): Middleware {
  const { before } = middleware;
  if (!before) return middleware;
  return {
    ...middleware,
    before: async (request) => {
      const remaining = request.context.getRemainingTimeInMillis?.();
      const checked: Promise<unknown> = Promise.resolve(before(request));
      return await (remaining === undefined ? checked : answeredBy(checked, Date.now() + remaining - BEFORE_ANSWER_MS, 'A dependency of the request’s check'));
    },
  };
}

/**
 * A route that reads no body refuses one with fields (`{}`, however spaced, or nothing is no body), as a route with
 * a body refuses an unknown field: a caller asking `…/test` for `{"type": …}` must hear it cannot.
 */
function noBody(): Middleware {
  return {
    before: ({ event }) => {
      const text = (event.isBase64Encoded && event.body ? Buffer.from(event.body, 'base64').toString('utf8') : event.body)?.trim();
      if (text && !isEmptyJsonObject(text)) throw new ValidationError('This route takes no request body');
    },
  };
}

/** `{}` however it is spaced (`{ }`, `{\n}`): a serializer's way of sending nothing. */
const isEmptyJsonObject = (text: string) => /^\{\s*\}$/.test(text);

/**
 * `requestContext.path` is the path as the client called it (with the stage, or a custom
 * domain's base path); `event.path` is the resource path. Their difference is the API's prefix.
 */
function baseUrlOf(event: APIGatewayProxyEvent): string {
  const host = event.headers?.host ?? event.requestContext?.domainName ?? 'localhost';
  const proto = event.headers?.['x-forwarded-proto'] ?? 'https';
  const calledPath = event.requestContext?.path ?? event.path;
  const prefix = calledPath.endsWith(event.path) ? calledPath.slice(0, calledPath.length - event.path.length) : '';
  return `${proto}://${host}${prefix}`;
}
