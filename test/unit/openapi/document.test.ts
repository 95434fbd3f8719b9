import { readFileSync } from 'node:fs';
import { buildOpenApiDocument } from '../../../lib/openapi/document';
import { OPENAPI_DOCUMENT_PATH, renderDocument } from '../../../lib/openapi/document-file';
import { routeEntries } from '../../../lambdas/routes';
import { errorCodes } from '../../../lambdas/shared/errors';
import { openApiDocument, responseProblem, schemaAt } from '../../support/openapi-contract';

type JsonObject = Record<string, unknown>;
type Operation = { parameters?: { name: string; in: string; required: boolean }[]; requestBody?: { content: Record<string, MediaType> }; responses: Record<string, JsonObject> };
type MediaType = { schema: JsonObject; examples?: Record<string, { value: unknown }> };

const committed = openApiDocument() as { openapi: string; paths: Record<string, Record<string, Operation>>; components: { responses: Record<string, { content: Record<string, MediaType> }> } };

/** Every `[pointer, value]` under `node`, depth first. */
function* walk(node: unknown, pointer = '#'): Generator<[string, unknown]> {
  yield [pointer, node];
  if (node && typeof node === 'object') {
    for (const [key, child] of Object.entries(node)) yield* walk(child, `${pointer}/${key.replace(/~/g, '~0').replace(/\//g, '~1')}`);
  }
}

const pointerTarget = (pointer: string): unknown =>
  pointer
    .slice(2)
    .split('/')
    .map((part) => part.replace(/~1/g, '/').replace(/~0/g, '~'))
    .reduce<unknown>((node, key) => (node as JsonObject | undefined)?.[key], committed);

describe('docs/openapi.json', () => {
  it('is what the route table and the zod schemas generate (run `npm run openapi` after changing either)', async () => {
    const generated = renderDocument(await buildOpenApiDocument());
    const onDisk = readFileSync(OPENAPI_DOCUMENT_PATH, 'utf8');
    if (onDisk !== generated) {
      const [want, have] = [generated.split('\n'), onDisk.split('\n')];
      const line = want.findIndex((text, i) => text !== have[i]);
      throw new Error(
        `docs/openapi.json is out of date: run \`npm run openapi\` and commit the result.\n` +
          `First difference at line ${line + 1}:\n  generated: ${want[line]?.trim()}\n  committed: ${have[line]?.trim()}`,
      );
    }
  });

  it('is OpenAPI 3.1 with one operation per route of the table, and nothing else', () => {
    expect(committed.openapi).toBe('3.1.0');
    const documented = Object.entries(committed.paths).flatMap(([path, methods]) => Object.keys(methods).map((method) => `${method.toUpperCase()} ${path}`));
    expect(documented.sort()).toEqual(routeEntries.map(([, route]) => `${route.method} ${route.path}`).sort());
  });

  it('declares every path parameter of every path, and no other', () => {
    for (const [path, methods] of Object.entries(committed.paths)) {
      const inPath = [...path.matchAll(/\{(\w+)\}/g)].map((match) => match[1]);
      for (const operation of Object.values(methods)) {
        const declared = (operation.parameters ?? []).filter((parameter) => parameter.in === 'path');
        expect([path, declared.map((parameter) => parameter.name)]).toEqual([path, inPath]);
        expect(declared.every((parameter) => parameter.required)).toBe(true);
      }
    }
  });

  it('resolves every $ref', () => {
    const dangling = [...walk(committed)].filter(([pointer, value]) => pointer.endsWith('/$ref') && (typeof value !== 'string' || pointerTarget(value) === undefined));
    expect(dangling).toEqual([]);
  });

  it('says what every property takes (a field read by hand still names its type)', () => {
    const untyped = [...walk(committed)].filter(([pointer, value]) => /\/properties\/[^/]+$/.test(pointer) && JSON.stringify(value) === '{}').map(([pointer]) => pointer);
    expect(untyped).toEqual([]);
  });

  it('has schemas that compile as JSON Schema 2020-12, and examples that match them', () => {
    const schemaPointers = [...walk(committed)]
      .map(([pointer]) => pointer)
      .filter((pointer) => /\/(schema|schemas\/[^/]+)$/.test(pointer) && !pointer.includes('/properties/'));
    expect(schemaPointers.length).toBeGreaterThan(50);
    for (const pointer of schemaPointers) expect([pointer, typeof schemaAt(pointer)]).toEqual([pointer, 'function']);

    const mismatches = [...walk(committed)]
      .filter(([pointer]) => /\/content\/[^/]+$/.test(pointer))
      .flatMap(([pointer, mediaType]) =>
        Object.entries((mediaType as MediaType).examples ?? {}).flatMap(([name, example]) => {
          const validate = schemaAt(`${pointer}/schema`);
          return validate(example.value) ? [] : [`${pointer} example ${name}: ${JSON.stringify(validate.errors)}`];
        }),
      );
    expect(mismatches).toEqual([]);
  });

  it('documents an error response for every status a route can answer with, each code with its own status', () => {
    for (const [name, response] of Object.entries(committed.components.responses)) {
      const status = Number(/\d{3}$/.exec(name)?.[0]);
      const codes = (response.content['application/json']!.schema.properties as { error: { enum: (keyof typeof errorCodes)[] } }).error.enum;
      // API Gateway's own integration failure and timeout keep their status (lib/constructs/gateway-responses.ts).
      for (const code of codes) expect([name, code, errorCodes[code] === status || status === 502 || status === 504]).toEqual([name, code, true]);
    }
    expect(Object.keys(committed.paths['/v1/messages']!.post!.responses)).toEqual(['202', '400', '401', '403', '409', '413', '422', '429', '500', '502', '503', '504']);
    // A route that reads no body answers a body with fields 422 (decision 176): documented on every operation.
    expect(Object.keys(committed.paths['/health']!.get!.responses)).toEqual(['200', '400', '413', '422', '429', '500', '502', '504']);
    expect(Object.keys(committed.paths['/v1/message-templates']!.get!.responses)).toContain('422');
  });

  // docs/api.md#errors: which codes an endpoint can answer "is listed per operation". Any request
  // may be one that cannot be read (a query escape that is not UTF-8, a head over the local
  // server's 16 KB) or carry a body over the limits, a route that reads none too (decision 223).
  it('documents on every operation the 400 of a request that cannot be read and the 413 of a body over the limits', () => {
    const undocumented = Object.entries(committed.paths).flatMap(([path, methods]) =>
      Object.entries(methods).flatMap(([method, operation]) => ['400', '413'].filter((status) => !operation.responses[status]).map((status) => `${method.toUpperCase()} ${path}: ${status}`)),
    );
    expect(undocumented).toEqual([]);
  });
});

describe('success headers', () => {
  // Every 202 documented a `Location` "as `statusUrl`": a client generated from the document read it
  // on the webhook test and resend routes, whose handlers never send it (the docs review).
  it('documents a Location header on exactly the 202s whose body carries the statusUrl it repeats', () => {
    const withLocation = Object.entries(committed.paths).flatMap(([path, methods]) =>
      Object.entries(methods).flatMap(([method, operation]) => (Object.keys((operation.responses['202'] as { headers?: JsonObject } | undefined)?.headers ?? {}).includes('Location') ? [`${method.toUpperCase()} ${path}`] : [])),
    );
    expect(withLocation).toEqual(['POST /v1/messages']);
  });
});

describe('checking a response against the document', () => {
  const health = JSON.stringify({ success: true, data: { status: 'ok', service: 'messaging-api-external' } });
  const json = 'application/json; charset=utf-8';

  it('accepts a documented status with a matching body', () => {
    expect(responseProblem('GET', 'http://127.0.0.1:3000/health', 200, json, health)).toBeUndefined();
  });

  it('names an undocumented status, an extra property where the contract allows none, and a wrong code for the status', () => {
    expect(responseProblem('GET', '/health', 418, json, health)).toContain('GET /health answered 418, which docs/openapi.json does not document');
    expect(responseProblem('GET', '/health', 200, json, JSON.stringify({ success: true, data: { status: 'ok', service: 'messaging-api-external', extra: 1 } }))).toContain(
      '/data must NOT have additional properties "extra"',
    );
    const error = (code: string) => JSON.stringify({ success: false, error: code, message: 'x', requestId: 'r' });
    expect(responseProblem('GET', '/v1/message-templates', 401, json, error('unauthorized'))).toBeUndefined();
    expect(responseProblem('GET', '/v1/message-templates', 401, json, error('forbidden'))).toContain('/error must be equal to one of the allowed values');
  });

  it('holds a request no operation matches to the error body with 404', () => {
    const notFound = JSON.stringify({ success: false, error: 'not_found', message: 'No route matches GET /nothing', requestId: 'r' });
    expect(responseProblem('GET', '/nothing', 404, 'application/json', notFound)).toBeUndefined();
    expect(responseProblem('DELETE', '/v1/messages', 404, 'application/json', JSON.stringify({ error: 'not_found' }))).toContain("must have required property 'success'");
  });
});
