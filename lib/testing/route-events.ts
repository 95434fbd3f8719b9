import { Writable } from 'node:stream';
import type { APIGatewayProxyEvent, APIGatewayProxyResult } from 'aws-lambda';
import type { HttpMetadataSink } from '../../lambdas/http/lambda-streaming';
import { MEDIA_TYPES, pathOf, routes, routeTimeoutSeconds, type RouteDefinition, type RouteId } from '../../lambdas/routes';
import { apiGatewayEvent } from '../../lambdas/http/rest-proxy-event';
import { lambdaContext } from '../local/api-gateway-event';
import { encodeBody, encodingOf } from './request-bodies';
import { bufferedResponseError } from '../local/lambda-response-limit';

export interface EventInput {
  pathParameters?: Record<string, string>;
  headers?: Record<string, string>;
  /** A value array repeats the parameter (`trackingTags=a&trackingTags=b`). */
  query?: Record<string, string | string[]>;
  /**
   * An object is sent in the encoding a Content-Type header names: JSON without one, forms in the
   * bracket notation (`content[variables][name]=Budi`); a multipart header without a boundary gets one.
   * A string or Buffer is sent as it is, with the Content-Type of the route's one encoding unless
   * a header names one.
   */
  body?: unknown;
  apiKey?: string;
  requestId?: string;
}

/** The API Gateway REST (v1) proxy event API Gateway sends for a request to `routeId`. */
export function routeEvent(routeId: RouteId, input: EventInput = {}): APIGatewayProxyEvent {
  const route: Pick<RouteDefinition, 'method' | 'path' | 'body'> = routes[routeId];
  const pathParameters = input.pathParameters ?? null;
  const path = pathOf(route, pathParameters ?? {});
  const headers: [string, string][] = [
    ['Host', 'abc123.execute-api.ap-southeast-3.amazonaws.com'],
    ['X-Forwarded-Proto', 'https'],
    ['User-Agent', 'jest'],
    ...Object.entries(input.headers ?? {}),
  ];
  if (input.apiKey) headers.push(['X-API-Key', input.apiKey]);
  let body: string | Buffer | undefined;
  if (typeof input.body === 'string' || Buffer.isBuffer(input.body)) {
    body = input.body;
    // Raw bytes (a signed WhatsApp body) in the one encoding their route takes, as its caller sends them.
    const [only, ...others] = route.body ?? [];
    if (only && !others.length && !headers.some(([name]) => name.toLowerCase() === 'content-type')) headers.push(['Content-Type', MEDIA_TYPES[only]]);
  } else if (input.body !== undefined) {
    // An object goes in the encoding the Content-Type header names (JSON without one), as a client would send it.
    const at = headers.findIndex(([name]) => name.toLowerCase() === 'content-type');
    const { encoding, boundary } = encodingOf(at === -1 ? undefined : headers[at]![1]);
    const encoded = encodeBody(input.body as Record<string, unknown>, encoding, boundary);
    body = encoded.body;
    if (at === -1) headers.push(['Content-Type', encoded.headers['Content-Type']!]);
    else if (encoding === 'multipart' && !boundary) headers[at] = [headers[at]![0], encoded.headers['Content-Type']!];
  }
  const query = Object.entries(input.query ?? {}).flatMap(([name, value]) => (Array.isArray(value) ? value : [value]).map((v): [string, string] => [name, v]));
  const event = apiGatewayEvent({ method: route.method, path, resource: route.path, pathParameters, headers, query, ...(body !== undefined ? { body } : {}), ...(input.requestId ? { requestId: input.requestId } : {}) });
  // Deployed, the called path carries the stage name.
  event.requestContext.path = `/prod${path}`;
  event.requestContext.stage = 'prod';
  return event;
}

/** A response read as a client reads it: header names lower-cased (HTTP's are case-insensitive). */
export interface ParsedResult<Body> {
  status: number;
  headers: Record<string, string>;
  body: Body;
}

/**
 * The response's status, headers (names lower-cased: the handlers set some lower-case, some not,
 * and API Gateway passes them as set) and body: parsed JSON by default; with `'text'`, the body as
 * sent, for the answers that are not JSON (a 204's empty body, the verification handshake's
 * `text/plain` challenge). Reading one of those as JSON throws, saying so.
 */
export function parseResult(result: APIGatewayProxyResult, as: 'text'): ParsedResult<string>;
export function parseResult(result: APIGatewayProxyResult, as?: 'json'): ParsedResult<Record<string, unknown>>;
export function parseResult(result: APIGatewayProxyResult, as: 'json' | 'text' = 'json'): ParsedResult<Record<string, unknown> | string> {
  const headers = Object.fromEntries(Object.entries(result.headers ?? {}).map(([name, value]) => [name.toLowerCase(), String(value)]));
  if (as === 'text') return { status: result.statusCode, headers, body: result.body };
  const type = headers['content-type'];
  if (!result.body || (type !== undefined && !/^application\/([\w.-]+\+)?json\b/i.test(type))) {
    throw new Error(`parseResult: the ${result.statusCode} answer's body is ${result.body ? type : 'empty'}, not JSON; read it with parseResult(result, 'text')`);
  }
  return { status: result.statusCode, headers, body: JSON.parse(result.body) as Record<string, unknown> };
}

/**
 * A route's Middy-wrapped `handler` (`lambdas/handlers/<handler>.ts`): buffered, `(event, context)`,
 * or streamed, `(event, responseStream, context)` (lambdas/http/http-handler.ts, StreamedHandler).
 */
export type RouteHandler = (event: APIGatewayProxyEvent, ...rest: never[]) => unknown;

/**
 * Invokes a route's handler as Lambda would: with a response stream for streaming routes
 * (collected here into the same result shape), plainly otherwise, throwing as Lambda fails a
 * buffered response over its 6 MB limit (lib/local/lambda-response-limit.ts). Takes an event (invoked as a
 * copy, so one event may be invoked more than once), or what `routeEvent` takes to build one.
 */
export async function invokeRoute(routeId: RouteId, handler: RouteHandler, request: APIGatewayProxyEvent | EventInput = {}): Promise<APIGatewayProxyResult> {
  // Middy parses the body and lower-cases the headers of the event it is given, in place: a copy
  // keeps the caller's event as built, so invoking it again answers as the first time did. Lambda
  // hands a function its event as JSON, so a JSON copy is the faithful one (structuredClone refused
  // generated events in the input properties test).
  const event = JSON.parse(JSON.stringify('requestContext' in request ? request : routeEvent(routeId, request))) as APIGatewayProxyEvent;
  const context = lambdaContext(routeId, routeTimeoutSeconds(routes[routeId] as RouteDefinition) * 1000);
  const invoke = handler as unknown as (...args: unknown[]) => Promise<unknown>;
  if (!(routes[routeId] as { streaming?: boolean }).streaming) {
    const result = (await invoke(event, context)) as APIGatewayProxyResult;
    const tooLarge = bufferedResponseError(result);
    if (tooLarge) throw new Error(`${routeId}: ${tooLarge}`);
    return result;
  }
  const chunks: Buffer[] = [];
  let metadata: { statusCode?: number; headers?: Record<string, string> } = {};
  const sink: HttpMetadataSink = new Writable({
    write(chunk: Buffer, _encoding, done) {
      chunks.push(Buffer.from(chunk));
      done();
    },
  });
  sink.setHttpMetadata = (given) => (metadata = given);
  await invoke(event, sink, context);
  return { statusCode: metadata.statusCode ?? 200, headers: metadata.headers ?? {}, body: Buffer.concat(chunks).toString('utf8') };
}
