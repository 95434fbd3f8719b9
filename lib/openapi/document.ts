import { join } from 'node:path';
import * as z from '../../lambdas/shared/zod';
import type { RequestSchemas } from '../../lambdas/http/http-handler';
import type { OperationDoc } from '../../lambdas/http/operation-doc';
import { MEDIA_TYPES, routeEntries, type RouteDefinition, type RouteId } from '../../lambdas/routes';
import { webhookEventBodies } from '../../lambdas/domain/webhooks/event-schemas';
import { errorBodySchema } from '../../lambdas/shared/error-body';
import type { ErrorCode } from '../../lambdas/shared/errors';
import { scopes } from '../../lambdas/shared/scopes';
import { errorMeanings, errorsOf, retryAfterCodes } from './errors';
import { HANDLERS_DIR } from '../project-paths';

type JsonSchema = Record<string, unknown>;
type JsonObject = Record<string, unknown>;

export interface OpenApiDocument {
  openapi: '3.1.0';
  info: JsonObject;
  servers: JsonObject[];
  tags: JsonObject[];
  security: JsonObject[];
  paths: Record<string, Record<string, JsonObject>>;
  /** The events the API posts to integrations' webhook endpoints (docs/api.md#webhook-events). */
  webhooks: Record<string, { post: JsonObject }>;
  components: {
    schemas: Record<string, JsonSchema>;
    responses: Record<string, JsonObject>;
    securitySchemes: Record<string, JsonObject>;
    headers: Record<string, JsonObject>;
  };
}

/** The interface's version (docs/api.md#versioning). */
const API_VERSION = '0.1.0';
const COMPONENT = '#/components/schemas/';
const ERROR_BODY = 'ErrorBody';
const SIGNATURE_HEADER = 'X-Hub-Signature-256';


const formatsWithoutPattern = new Set(['date-time', 'uuid', 'email', 'uri']);

/** The Standard Webhooks headers of every event POST (docs/api.md#webhook-events). */
const webhookHeaders: JsonObject[] = [
  { name: 'webhook-id', in: 'header', required: true, description: 'The event id: the same on every retry and resend.', schema: { type: 'string' } },
  { name: 'webhook-timestamp', in: 'header', required: true, description: 'Unix seconds of this attempt.', schema: { type: 'string', pattern: '^\\d+$' } },
  {
    name: 'webhook-signature',
    in: 'header',
    required: true,
    description: '`v1,` and the base64 HMAC-SHA256 of `{webhook-id}.{webhook-timestamp}.{body}` under the endpoint’s secret; during a rotation’s overlap, one per secret, space-separated.',
    schema: { type: 'string' },
  },
];

/** Shared resources get their own components, named as the contract names them. */
const resourceNames = (schemasOf: (id: RouteId) => RequestSchemas): [z.ZodMiniType, string][] => {
  const template = schemasOf('getTemplate').response as z.ZodMiniObject<{ versions: z.ZodMiniArray<z.ZodMiniType> }>;
  return [
    [errorBodySchema, ERROR_BODY],
    [template, 'MessageTemplate'],
    [template.shape.versions.def.element, 'TemplateVersion'],
    [schemasOf('getMessage').response!, 'MessageStatus'],
    [schemasOf('getConversation').response!, 'Conversation'],
    [schemasOf('sendCheck').response!, 'SendCheck'],
    [schemasOf('sendMessage').response!, 'SendMessageAccepted'],
  ];
};

/**
 * What a route keeps next to its handler, found through the route table's `handler` name: the
 * schemas the handler validates with and is typed by, and its operation's prose and examples.
 */
async function routeFiles(route: RouteDefinition): Promise<{ schemas: RequestSchemas; doc: OperationDoc }> {
  const handler = (await import(join(HANDLERS_DIR, route.handler))) as { schemas?: RequestSchemas };
  const { operation, ...openapi } = (await import(join(HANDLERS_DIR, `${route.handler}.openapi`))) as { operation?: OperationDoc; schemas?: RequestSchemas };
  // A route that reads no input keeps its response schema in its .openapi.ts (GET /health), so its bundle carries no zod.
  const schemas = handler.schemas ?? openapi.schemas;
  if (!schemas) throw new Error(`lambdas/handlers/${route.handler}.ts (or, for a route that reads no input, its .openapi.ts) must export its schemas`);
  if (!operation) throw new Error(`lambdas/handlers/${route.handler}.openapi.ts must export its operation`);
  return { schemas, doc: operation };
}

/**
 * The OpenAPI 3.1 document of the API, built from the route table and each route's own zod
 * schemas: requests as the handlers accept them (`io: 'input'`), responses as the handlers are
 * typed to return them (`io: 'output'`). Nothing in it is kept by hand but prose and examples.
 */
export async function buildOpenApiDocument(): Promise<OpenApiDocument> {
  const files = new Map(await Promise.all(routeEntries.map(async ([id, route]) => [id, await routeFiles(route)] as const)));
  const responses = z.registry<{ id: string }>();
  const requests = z.registry<{ id: string }>();
  for (const [schema, id] of resourceNames((id) => files.get(id)!.schemas)) responses.add(schema, { id });
  const events = Object.entries(webhookEventBodies).map(([type, body]) => ({ type, ...body, id: `${type.split(/[._]/).map(pascal).join('')}Event` }));
  for (const { schema, id } of events) responses.add(schema, { id });

  const paths: OpenApiDocument['paths'] = {};
  const operationParts = routeEntries.map(([id, route]) => {
    const { schemas, doc } = files.get(id)!;
    const name = pascal(id);
    if (schemas.response && !responses.has(schemas.response)) responses.add(schemas.response, { id: `${name}Response` });
    const body = schemas.body;
    if (route.body && body && !requests.has(body)) requests.add(body, { id: `${name}Request` });
    return { id, route, schemas, doc, body };
  });

  const components: Record<string, JsonSchema> = {
    ...toComponents(responses, 'output'),
    ...toComponents(requests, 'input'),
  };
  const refOf = (registry: z.core.$ZodRegistry<{ id: string }>, schema: z.ZodMiniType | undefined) => {
    const meta = schema && registry.get(schema);
    return meta ? { $ref: `${COMPONENT}${meta.id}` } : undefined;
  };

  const errorResponses: Record<string, JsonObject> = {};
  for (const { id, route, schemas, doc, body } of operationParts) {
    const operation: JsonObject = {
      operationId: id,
      summary: route.summary,
      ...(doc.description ? { description: doc.description } : {}),
      tags: [doc.tag],
      security: securityOf(route),
      ...(route.scope ? { 'x-required-scope': route.scope } : {}),
    };
    const parameters = [...parametersOf(schemas.path, 'path'), ...parametersOf(schemas.query, 'query'), ...parametersOf(schemas.headers, 'header')];
    if (parameters.length) operation.parameters = parameters;
    if (route.body) operation.requestBody = requestBodyOf(route, refOf(requests, body), doc);
    operation.responses = {
      ...successOf(route, refOf(responses, schemas.response) ?? {}, doc, {
        keyed: parameters.some((parameter) => parameter.in === 'header' && parameter.name === 'Idempotency-Key'),
        // Only an answer that names a status URL repeats it as Location (the send's): other 202s have none to give.
        locates: Boolean(schemas.response && 'shape' in schemas.response && 'statusUrl' in (schemas.response.shape as object)),
      }),
      ...errorResponsesOf(route, schemas, doc, errorResponses),
    };
    if (route.streaming) operation['x-streamed'] = true;
    (paths[route.path] ??= {})[route.method.toLowerCase()] = operation;
  }

  const webhooks: OpenApiDocument['webhooks'] = Object.fromEntries(
    events.map(({ type, summary, description, id }) => [
      type,
      {
        post: {
          operationId: `${id[0]!.toLowerCase()}${id.slice(1)}`,
          summary,
          description: `${description} Posted to each enabled endpoint whose \`events\` names it (or is null), signed per Standard Webhooks: verify \`webhook-signature\` over \`{webhook-id}.{webhook-timestamp}.{body}\` with the endpoint’s secret.`,
          tags: ['Webhook events'],
          parameters: webhookHeaders,
          requestBody: { required: true, content: { 'application/json': { schema: { $ref: `${COMPONENT}${id}` } } } },
          responses: {
            '2XX': { description: 'Taken: any 2xx; the body is not read.' },
            '410': { description: 'Gone: the endpoint is disabled at once, with no retry.' },
            default: { description: 'Anything else (or no answer within 5 s) is retried with the same webhook-id and body: 5 s, 30 s, 2 min, … over about 25 hours.' },
          },
        },
      },
    ]),
  );

  return {
    openapi: '3.1.0',
    info: {
      title: 'Messaging API',
      version: API_VERSION,
      summary: 'Server-to-server WhatsApp template messaging for workspace integrations.',
      description:
        'Queues template messages, reports delivery, groups dispatches by tracking tag, reads conversations and exposes message templates. ' +
        'Calendar dates are Asia/Jakarta (WIB) days, inclusive at both ends. Every error has the `ErrorBody` shape; its `requestId` is also ' +
        'the `X-Request-Id` response header. Generated from the route table and the zod schemas by `npm run openapi`.',
    },
    servers: [
      { url: 'http://127.0.0.1:3000', description: 'The local runtime (`npm start`)' },
      {
        url: 'https://{apiId}.execute-api.{region}.amazonaws.com/{stage}',
        description: 'A deployed stage',
        variables: { apiId: { default: 'abcdef1234' }, region: { default: 'ap-southeast-3' }, stage: { default: 'prod' } },
      },
    ],
    tags: [
      { name: 'Messages', description: 'Send, and follow what happened to what was sent' },
      { name: 'Reports', description: 'SENT or DELIVERED dispatches by tracking tag' },
      { name: 'Templates', description: 'Approved message templates' },
      { name: 'Conversations', description: 'Conversations with contacts and their message history' },
      { name: 'Webhook endpoints', description: 'Where the workspace’s events are pushed, signed (scope `webhooks:manage`)' },
      { name: 'Webhooks', description: 'Called by the WhatsApp Cloud API, not by integrations' },
      { name: 'Webhook events', description: 'Posted by the API to the workspace’s webhook endpoints' },
      { name: 'Health', description: 'Service availability' },
    ],
    security: [{ ApiKey: [] }],
    paths,
    webhooks,
    components: {
      schemas: sortKeys(components),
      responses: sortKeys(errorResponses),
      securitySchemes: {
        ApiKey: {
          type: 'apiKey',
          in: 'header',
          name: 'X-API-Key',
          description: `A workspace API key. Each operation names the scope it needs (${scopes.map((scope) => `\`${scope}\``).join(', ')}) in its security requirement.`,
        },
        WhatsAppSignature: {
          type: 'apiKey',
          in: 'header',
          name: SIGNATURE_HEADER,
          description: '`sha256=` and the hex HMAC-SHA256 of the raw request body, keyed with the WhatsApp app secret.',
        },
      },
      headers: {
        RequestId: { description: 'The request’s id, also in error bodies and on every log line of the request.', schema: { type: 'string' } },
        RetryAfter: { description: 'Seconds to wait before retrying.', schema: { type: 'integer', minimum: 0 } },
      },
    },
  };
}

function toComponents(registry: z.core.$ZodRegistry<{ id: string }>, io: 'input' | 'output'): Record<string, JsonSchema> {
  const { schemas } = z.toJSONSchema(registry, { ...conversion(io), uri: (id) => `${COMPONENT}${id}` });
  return Object.fromEntries(Object.entries(schemas).map(([id, schema]) => [id, withoutDialect(schema as JsonSchema)]));
}

function conversion(io: 'input' | 'output') {
  return {
    target: 'draft-2020-12' as const,
    io,
    unrepresentable: 'any' as const,
    override: ({ zodSchema, jsonSchema }: { zodSchema: z.core.$ZodTypes; jsonSchema: JsonSchema }) => {
      // zod closes every object it outputs; the contract closes only those built with strictObject
      // ("no other properties", docs/api.md#conventions), so clients must tolerate new fields elsewhere.
      const def = zodSchema._zod.def;
      if (def.type === 'object' && def.catchall === undefined) delete jsonSchema.additionalProperties;
      // zod spells a format out as a regular expression too; the named format says the same, readably.
      if (typeof jsonSchema.format === 'string' && formatsWithoutPattern.has(jsonSchema.format)) delete jsonSchema.pattern;
      // `.int()` bounds every integer by the safe range; only real limits belong in the document.
      if (jsonSchema.maximum === Number.MAX_SAFE_INTEGER) delete jsonSchema.maximum;
      if (jsonSchema.minimum === Number.MIN_SAFE_INTEGER) delete jsonSchema.minimum;
    },
  };
}

/** Components are parts of this document, not schema resources of their own. */
function withoutDialect({ $schema: _dialect, $id: _id, ...schema }: JsonSchema): JsonSchema {
  return schema;
}

function securityOf(route: RouteDefinition): JsonObject[] {
  if (route.scope) return [{ ApiKey: [route.scope] }];
  if (route.signed) return [{ WhatsAppSignature: [] }];
  return [];
}

/** An object schema's properties as OpenAPI parameters (path ones always required). */
function parametersOf(schema: z.ZodMiniType | undefined, where: 'path' | 'query' | 'header'): JsonObject[] {
  if (!schema) return [];
  const json = z.toJSONSchema(schema, conversion('input')) as { properties?: Record<string, JsonSchema>; required?: string[] };
  return Object.entries(json.properties ?? {})
    .map(([name, property]) => ({ name: where === 'header' ? headerName(name) : name, property, required: where === 'path' || (json.required ?? []).includes(name) }))
    .map(({ name, property, required }) => {
      const { description, ...rest } = property;
      return { name, in: where, required, ...(description ? { description } : {}), schema: rest };
    });
}

function requestBodyOf(route: RouteDefinition, schema: JsonObject | undefined, doc: OperationDoc): JsonObject {
  const encodings = route.body ?? [];
  const content = Object.fromEntries(
    encodings.map((encoding) => [
      MEDIA_TYPES[encoding],
      { schema: schema ?? {}, ...(encoding === 'json' && doc.examples?.request ? { examples: { contract: { value: doc.examples.request } } } : {}) },
    ]),
  );
  return { required: true, content };
}

function successOf(route: RouteDefinition, schema: JsonObject, doc: OperationDoc, { keyed, locates }: { keyed: boolean; locates: boolean }): JsonObject {
  const status = String(doc.successStatus ?? 200);
  const headers: JsonObject = { 'X-Request-Id': { $ref: '#/components/headers/RequestId' } };
  if (doc.successStatus === 202 && locates) headers.Location = { description: 'The dispatch’s status URL, as `statusUrl`.', schema: { type: 'string', format: 'uri' } };
  if (keyed) {
    headers['Idempotent-Replayed'] = { description: '`true` when this is the stored answer to an earlier request with the same Idempotency-Key.', schema: { type: 'string', const: 'true' } };
  }
  if (doc.successStatus === 204) return { '204': { description: route.summary, headers } };
  const example = doc.examples?.response === undefined ? {} : { examples: { contract: { value: doc.examples.response } } };
  return {
    [status]: {
      description: route.summary,
      headers,
      content: { [doc.successMediaType ?? 'application/json']: { schema, ...example } },
    },
  };
}

/**
 * An operation's error responses, each a reference to a shared response named for its status and
 * codes (`ValidationFailed422`), whose schema admits exactly those codes.
 */
function errorResponsesOf(route: RouteDefinition, schemas: RequestSchemas, doc: OperationDoc, shared: Record<string, JsonObject>): JsonObject {
  const responses: JsonObject = {};
  for (const [status, codes] of errorsOf(route, doc.errors ?? [])) {
    const name = `${codes.map((code) => pascal(code.replace(/_([a-z])/g, (_, letter: string) => letter.toUpperCase()))).join('Or')}${status}`;
    responses[String(status)] = { $ref: `#/components/responses/${name}` };
    if (shared[name]) continue;
    const headers: JsonObject = { 'X-Request-Id': { $ref: '#/components/headers/RequestId' } };
    if (codes.some((code) => retryAfterCodes.has(code))) headers['Retry-After'] = { $ref: '#/components/headers/RetryAfter' };
    shared[name] = {
      description: codes.map((code) => `\`${code}\`: ${errorMeanings[code]}`).join('; '),
      headers,
      content: {
        'application/json': {
          schema: { $ref: `${COMPONENT}${ERROR_BODY}`, type: 'object', properties: { error: { enum: codes } } },
          examples: { [codes[0]!]: { value: errorExample(codes[0]!) } },
        },
      },
    };
  }
  return responses;
}

const errorExample = (code: ErrorCode) => ({ success: false, error: code, message: `${errorMeanings[code][0]!.toUpperCase()}${errorMeanings[code].slice(1)}`, requestId: '5b1c7e0a-2f4d-4c8e-9a1b-3d5f7e9a1c2e' });

const pascal = (id: string) => `${id[0]!.toUpperCase()}${id.slice(1)}`;

/** `idempotency-key` → `Idempotency-Key`: schemas see headers lower-cased by the normaliser. */
const headerName = (name: string) => name.replace(/(^|-)([a-z])/g, (_, dash: string, letter: string) => `${dash}${letter.toUpperCase()}`);

const sortKeys = <T>(record: Record<string, T>): Record<string, T> => Object.fromEntries(Object.entries(record).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
