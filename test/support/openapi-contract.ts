import { readFileSync } from 'node:fs';
import Ajv2020, { type ValidateFunction } from 'ajv/dist/2020';
import addFormats from 'ajv-formats';
import { createRouter } from '../../lib/local/router';
import { OPENAPI_DOCUMENT_PATH } from '../../lib/openapi/document-file';

/**
 * Checks HTTP responses against the committed OpenAPI document (docs/openapi.json), as a client
 * generated from it would read them: the status must be documented for the operation, and the
 * body must match that status's schema. Reads only the JSON file, so e2e tests may import it
 * before the runtime has set the handlers' environment.
 */

type JsonObject = Record<string, unknown>;
interface Operation {
  method: 'GET' | 'POST';
  path: string;
  /** JSON pointer of the operation inside the document. */
  pointer: string;
  responses: Record<string, JsonObject>;
}

const DOCUMENT_ID = 'https://messaging-api.local/openapi.json';
/** What a request no operation matches is answered with (the gateway's 404, the local server's too). */
const UNMATCHED_POINTER = '#/components/schemas/ErrorBody';

let loaded: { document: JsonObject; ajv: Ajv2020; match: ReturnType<typeof createRouter<Operation>> } | undefined;
const validators = new Map<string, ValidateFunction>();

/** The committed document, parsed once per test file. */
export function openApiDocument(): JsonObject {
  return load().document;
}

function load() {
  if (loaded) return loaded;
  const document = JSON.parse(readFileSync(OPENAPI_DOCUMENT_PATH, 'utf8')) as JsonObject & { paths: Record<string, Record<string, JsonObject>> };
  // The document is added whole, so its own `$ref`s resolve; its top-level members are not schema keywords.
  const ajv = new Ajv2020({ allErrors: true, strict: true, allowUnionTypes: true });
  addFormats(ajv);
  for (const keyword of ['openapi', 'info', 'servers', 'tags', 'security', 'paths', 'webhooks', 'components']) ajv.addKeyword(keyword);
  ajv.addSchema({ ...document, $id: DOCUMENT_ID });
  const operations: Operation[] = Object.entries(document.paths).flatMap(([path, methods]) =>
    Object.entries(methods).map(([method, operation]) => ({
      method: method.toUpperCase() as Operation['method'],
      path,
      pointer: `#/paths/${escapePointer(path)}/${method}`,
      responses: operation.responses as Record<string, JsonObject>,
    })),
  );
  loaded = { document, ajv, match: createRouter(operations) };
  return loaded;
}

/** The compiled schema at a pointer of the document (`#/components/schemas/ErrorBody`). */
export function schemaAt(pointer: string): ValidateFunction {
  const { ajv } = load();
  let validate = validators.get(pointer);
  if (!validate) {
    validate = ajv.compile({ $ref: `${DOCUMENT_ID}${pointer}` });
    validators.set(pointer, validate);
  }
  return validate;
}

/** Follows `{ $ref: '#/components/responses/X' }` to the response object. */
function resolveResponse(response: JsonObject): { response: JsonObject; pointer: string } | undefined {
  const ref = response.$ref;
  if (typeof ref !== 'string') return { response, pointer: '' };
  const target = ref
    .slice(2)
    .split('/')
    .map(unescapePointer)
    .reduce<unknown>((node, key) => (node as JsonObject | undefined)?.[key], load().document);
  return target ? { response: target as JsonObject, pointer: ref } : undefined;
}

/**
 * What is wrong with a response by the document, or undefined when it is as documented.
 * `body` is the raw text; JSON bodies are parsed here.
 */
export function responseProblem(method: string, url: string, status: number, contentType: string | null, body: string): string | undefined {
  const { pathname } = new URL(url, 'http://localhost');
  const where = `${method} ${pathname} answered ${status}`;
  const found = operationFor(method, pathname);
  const mediaType = (contentType ?? '').split(';')[0]!.trim().toLowerCase();

  let pointer: string;
  let documentedType: string;
  if (!found) {
    // API Gateway (and the local server) answer these themselves: no route, or a path that is not even decodable.
    if (status !== 404 && status !== 400) return `${where}, but it matches no operation: only 404 (or 400 for an undecodable path) can answer that`;
    pointer = UNMATCHED_POINTER;
    documentedType = 'application/json';
  } else {
    const operation = found.route;
    const declared = operation.responses[String(status)];
    if (!declared) return `${where}, which docs/openapi.json does not document for ${operation.method} ${operation.path} (documented: ${Object.keys(operation.responses).join(', ')})`;
    const resolved = resolveResponse(declared);
    if (!resolved) return `${where}: the document's response reference does not resolve`;
    const content = resolved.response.content as Record<string, unknown> | undefined;
    // A response documented without content (204) must come without a body, and without a type for one.
    if (!content) return body === '' && !contentType ? undefined : `${where} with a body or Content-Type, but the document gives it no content`;
    documentedType = Object.keys(content ?? {})[0] ?? '';
    const base = resolved.pointer || `${operation.pointer}/responses/${status}`;
    pointer = `${base}/content/${escapePointer(documentedType)}/schema`;
  }
  if (mediaType !== documentedType) return `${where} with Content-Type ${contentType ?? '(none)'}; the document says ${documentedType}`;

  let value: unknown = body;
  if (documentedType === 'application/json') {
    try {
      value = JSON.parse(body);
    } catch {
      return `${where} with a body that is not JSON: ${body.slice(0, 200)}`;
    }
  }
  const validate = schemaAt(pointer);
  if (validate(value)) return undefined;
  const errors = (validate.errors ?? []).map((error) => `${error.instancePath || '(body)'} ${error.message ?? ''}${error.params && 'additionalProperty' in error.params ? ` "${String(error.params.additionalProperty)}"` : ''}`);
  return `${where} with a body that does not match docs/openapi.json (${pointer}):\n  ${[...new Set(errors)].slice(0, 10).join('\n  ')}\nbody: ${body.slice(0, 500)}`;
}

function operationFor(method: string, pathname: string) {
  try {
    return load().match(method, pathname);
  } catch {
    return undefined; // A malformed percent-escape: the router cannot decode its parameters.
  }
}

/**
 * Throws, with a readable message, when the body of an event posted to an endpoint is not as the
 * document's `webhooks` says for its `type` (or its type is not there at all).
 */
export function assertDocumentedEvent(body: string): void {
  const event = JSON.parse(body) as { type?: unknown };
  const webhooks = load().document.webhooks as Record<string, unknown> | undefined;
  if (typeof event.type !== 'string' || !webhooks?.[event.type]) throw new Error(`Event breaks the OpenAPI contract: its type ${String(event.type)} is not among the document's webhooks`);
  const pointer = `#/webhooks/${escapePointer(event.type)}/post/requestBody/content/application~1json/schema`;
  const validate = schemaAt(pointer);
  if (validate(event)) return;
  const errors = (validate.errors ?? []).map((error) => `${error.instancePath || '(body)'} ${error.message ?? ''}`);
  throw new Error(`Event breaks the OpenAPI contract (${pointer}):\n  ${[...new Set(errors)].slice(0, 10).join('\n  ')}\nbody: ${body.slice(0, 500)}`);
}

/** Throws, with a readable message, when a response is not as the document says. */
export function assertDocumentedResponse(method: string, url: string, status: number, contentType: string | null, body: string): void {
  const problem = responseProblem(method, url, status, contentType, body);
  if (problem) throw new Error(`Response breaks the OpenAPI contract: ${problem}`);
}

/** `fetch`, with the response checked against the document before the test sees it. */
export async function contractFetch(url: string, init: RequestInit = {}): Promise<Response> {
  const response = await fetch(url, init);
  assertDocumentedResponse(init.method ?? 'GET', url, response.status, response.headers.get('content-type'), await response.clone().text());
  return response;
}

const escapePointer = (segment: string) => segment.replace(/~/g, '~0').replace(/\//g, '~1');
const unescapePointer = (segment: string) => segment.replace(/~1/g, '/').replace(/~0/g, '~');
