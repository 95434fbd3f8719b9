import { randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { Writable } from 'node:stream';
import type { HttpMetadataSink } from '../../lambdas/http/lambda-streaming';
import type { APIGatewayProxyEvent, APIGatewayProxyResult, Context } from 'aws-lambda';
import { routeTimeoutSeconds, type RouteDefinition } from '../../lambdas/routes';
import { errorBody, type ErrorCode, errorCodes } from '../../lambdas/shared/errors';
import { apiGatewayEvent } from '../../lambdas/http/rest-proxy-event';
import { lambdaContext } from './api-gateway-event';
import { bufferedResponseError, INVOKE_REQUEST_LIMIT_BYTES } from './lambda-response-limit';
import { createRouter } from './router';

export type ApiHandler = (event: APIGatewayProxyEvent, context: Context) => Promise<APIGatewayProxyResult>;
/** A streaming route's handler, as Lambda invokes it: the response goes to the stream. */
export type StreamingApiHandler = (event: APIGatewayProxyEvent, stream: HttpMetadataSink, context: Context) => Promise<void>;

export interface LoadedRoute {
  id: string;
  definition: RouteDefinition;
  handler: ApiHandler;
}

/** API Gateway's payload limit for REST APIs. */
const MAX_BODY_BYTES = 10 * 1024 * 1024;

export interface ApiServerOptions {
  /** JSON documents answered on GET at these paths, beside the routes (`/openapi.json`). */
  documents?: Record<string, string>;
  /**
   * True once the runtime is stopping: every route but the signed ones (WhatsApp's callbacks, which
   * bring the sandbox's last reports) answers 503, so nothing new is accepted that the stop would
   * strand, and `/health` no longer says ready.
   */
  stopping?: () => boolean;
}

/**
 * Plays API Gateway: turns each HTTP request into a REST API proxy event, invokes the route's
 * handler in-process, and answers with its result. Requests no route matches get the same error
 * body the stack's gateway responses give.
 */
export function createApiServer(routes: LoadedRoute[], onError: (error: unknown) => void, options: ApiServerOptions = {}): Server {
  const match = createRouter(routes.map((route) => ({ ...route, method: route.definition.method, path: route.definition.path })));
  const documents = new Map(Object.entries(options.documents ?? {}));

  const server = createServer((request, response) => {
    handle(request, response).catch((error: unknown) => {
      onError(error);
      if (!response.headersSent) send(response, gatewayError('internal_error', 'The local server failed to handle this request'));
    });
  });
  // A request Node refuses before any handler sees it is answered in the contract's body, as API
  // Gateway's own refusals are (its gateway responses), not with Node's bare status line. A head
  // over Node's 16 KB is 400, not Node's 431: 400 `bad_request` is what every operation documents
  // for a request that cannot be read, and no 431 of the deployed API is known (decision 223).
  server.on('clientError', (error: NodeJS.ErrnoException, socket) => {
    if (!socket.writable || error.code === 'ECONNRESET') return void socket.destroy();
    const tooLarge = error.code === 'HPE_HEADER_OVERFLOW';
    const refusal = gatewayError('bad_request', tooLarge ? 'The request line and headers are larger than the server takes (16 KB): send fewer or shorter query parameters' : 'The request is not valid HTTP');
    const head = Object.entries({ ...refusal.headers, 'content-length': Buffer.byteLength(refusal.body), connection: 'close' }).map(([name, value]) => `${name}: ${String(value)}`);
    socket.end(`HTTP/1.1 ${refusal.statusCode} Bad Request\r\n${head.join('\r\n')}\r\n\r\n${refusal.body}`);
  });
  return server;

  async function handle(request: IncomingMessage, response: ServerResponse): Promise<void> {
    const url = new URL(request.url ?? '/', `http://${request.headers.host ?? '127.0.0.1'}`);
    const unreadable = !isDecodable(url.pathname) ? 'path' : !isDecodable(url.search) ? 'query string' : undefined;
    if (unreadable) {
      request.resume();
      send(response, gatewayError('bad_request', `The request ${unreadable} is not valid percent-encoded UTF-8`));
      return;
    }
    const document = request.method === 'GET' ? documents.get(url.pathname) : undefined;
    if (document !== undefined) {
      request.resume();
      send(response, { statusCode: 200, headers: { 'content-type': 'application/json; charset=utf-8', 'x-request-id': randomUUID() }, body: document });
      return;
    }
    const found = match(request.method ?? 'GET', url.pathname);
    if (!found) {
      request.resume();
      send(response, gatewayError('not_found', `No route matches ${request.method} ${url.pathname}`));
      return;
    }
    if (options.stopping?.() && !found.route.definition.signed) {
      request.resume();
      send(response, gatewayError('service_unavailable', 'The local runtime is stopping'));
      return;
    }
    const body = await readBody(request, MAX_BODY_BYTES);
    if (!body) {
      send(response, gatewayError('payload_too_large', `Request bodies are limited to ${MAX_BODY_BYTES} bytes`));
      return;
    }
    const headers = headerPairs(request);
    // API Gateway tells the function how the client connected; here it is always plain HTTP.
    headers.push(['X-Forwarded-Proto', 'http']);
    const event = apiGatewayEvent({
      method: request.method ?? 'GET',
      path: url.pathname,
      resource: found.route.definition.path,
      pathParameters: found.pathParameters,
      headers,
      query: [...url.searchParams],
      body,
      sourceIp: request.socket.remoteAddress ?? '127.0.0.1',
    });
    if (Buffer.byteLength(JSON.stringify(event)) > INVOKE_REQUEST_LIMIT_BYTES) {
      send(response, gatewayError('payload_too_large', `The request is larger than Lambda's ${INVOKE_REQUEST_LIMIT_BYTES}-byte invoke payload`, 413));
      return;
    }
    // The route's deployed time: a handler still running then is answered 504, as deployed.
    const context = lambdaContext(found.route.id, routeTimeoutSeconds(found.route.definition) * 1000);
    if (found.route.definition.streaming) {
      await (found.route.handler as unknown as StreamingApiHandler)(event, responseSink(response), context);
      return;
    }
    const result = await found.route.handler(event, context);
    const tooLarge = bufferedResponseError(result);
    if (tooLarge) {
      // Lambda refuses the payload and API Gateway answers with its integration failure.
      onError(new Error(`${found.route.id}: ${tooLarge}`));
      send(response, gatewayError('internal_error', 'Internal server error', 502));
      return;
    }
    send(response, result);
  }
}

/** What API Gateway does with a streamed Lambda response: status and headers first, then the body as it comes. */
function responseSink(response: ServerResponse): HttpMetadataSink {
  const sink: HttpMetadataSink = new Writable({
    write(chunk: Buffer, _encoding, done) {
      if (!response.headersSent) response.writeHead(200);
      response.write(chunk, done);
    },
    final(done) {
      if (!response.headersSent) response.writeHead(200);
      response.end(done);
    },
  });
  sink.setHttpMetadata = ({ statusCode = 200, headers = {} }) => void response.writeHead(statusCode, headers);
  return sink;
}

/** The request's body, or undefined when it is over `maxBytes` (read to its end all the same, so the answer can be sent). */
export function readBody(request: IncomingMessage, maxBytes: number): Promise<Buffer | undefined> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    request.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size <= maxBytes) chunks.push(chunk);
    });
    request.on('end', () => resolve(size > maxBytes ? undefined : Buffer.concat(chunks)));
    request.on('error', reject);
  });
}

/** An answer of the gateway's own, carrying its request id as the stack's gateway responses do. */
function gatewayError(code: ErrorCode, message: string, statusCode: number = errorCodes[code]): APIGatewayProxyResult {
  const requestId = randomUUID();
  return { statusCode, headers: { 'content-type': 'application/json', 'x-request-id': requestId }, body: JSON.stringify(errorBody(code, message, requestId)) };
}

/** The request's headers as sent: name/value pairs in arrival order, repeated names kept. */
export function headerPairs(request: IncomingMessage): [string, string][] {
  const pairs: [string, string][] = [];
  for (let i = 0; i < request.rawHeaders.length; i += 2) pairs.push([request.rawHeaders[i]!, request.rawHeaders[i + 1]!]);
  return pairs;
}

/** Answers with a Lambda proxy result, as API Gateway (or a function URL) would. */
export function send(response: ServerResponse, result: APIGatewayProxyResult): void {
  const headers: Record<string, string | string[]> = {};
  for (const [name, value] of Object.entries(result.headers ?? {})) headers[name] = String(value);
  for (const [name, values] of Object.entries(result.multiValueHeaders ?? {})) headers[name] = values.map(String);
  response.writeHead(result.statusCode, headers);
  response.end(result.isBase64Encoded ? Buffer.from(result.body, 'base64') : result.body);
}

/**
 * The router decodes path parameters; a malformed escape such as `%E0%A4` is the client's error.
 * So is one in the query, which `URLSearchParams` would hand the route as U+FFFD (`%FF`) or as the
 * text (`100%`). The query's `&`, `=` and `+` are no escapes, so it decodes whole exactly when each
 * name and value does, and `searchParams` then decodes them as sent.
 */
function isDecodable(text: string): boolean {
  try {
    decodeURIComponent(text);
    return true;
  } catch {
    return false;
  }
}
