import type { Scope } from './shared/scopes';

/**
 * Request media types API Gateway passes to Lambda base64-encoded (the stack's binaryMediaTypes,
 * mirrored by the local server): multipart bodies must reach the parser byte for byte.
 */
export const BINARY_MEDIA_TYPES = ['multipart/form-data'] as const;

/** Body encodings a route accepts (public-api.md §4.2: send takes all three). */
export type BodyEncoding = 'json' | 'form' | 'multipart';

export interface RouteDefinition {
  method: 'GET' | 'POST';
  /** API Gateway resource path; `{name}` is a path parameter. */
  path: string;
  /** Handler module under `lambdas/handlers/`, exporting `handler`. */
  handler: string;
  /** Scope the API key needs; `null` for unauthenticated routes. */
  scope: Scope | null;
  /** Accepted request bodies; absent for routes without a body. */
  body?: readonly BodyEncoding[];
  /** What the function may touch: the stack grants exactly this, nothing more. */
  access: { table?: 'read' | 'readWrite'; queue?: 'send' };
  summary: string;
}

/**
 * The one route table. It drives the CDK stack (one function and one API method per entry),
 * the local server, the OpenAPI document and the route tests.
 */
export const routes = {
  health: {
    method: 'GET',
    path: '/health',
    handler: 'health',
    scope: null,
    access: {},
    summary: 'Service availability',
  },
  listTemplates: {
    method: 'GET',
    path: '/v1/message-templates',
    handler: 'list-templates',
    scope: 'templates:read',
    access: { table: 'read' },
    summary: 'List approved message templates',
  },
  getTemplate: {
    method: 'GET',
    path: '/v1/message-templates/{templateId}',
    handler: 'get-template',
    scope: 'templates:read',
    access: { table: 'read' },
    summary: 'Read one approved message template',
  },
  previewTemplate: {
    method: 'POST',
    // The contract names this segment templateVersionId. API Gateway allows one variable name per
    // path level, and GET /v1/message-templates/{templateId} holds this level (docs/decisions.md).
    path: '/v1/message-templates/{templateId}/preview',
    handler: 'preview-template',
    scope: 'templates:read',
    body: ['json'],
    access: { table: 'read' },
    summary: 'Render a template version with variable values',
  },
  sendMessage: {
    method: 'POST',
    path: '/v1/messages',
    handler: 'send-message',
    scope: 'messages:send',
    body: ['json', 'form', 'multipart'],
    access: { table: 'readWrite', queue: 'send' },
    summary: 'Queue a WhatsApp template message',
  },
  getMessage: {
    method: 'GET',
    path: '/v1/messages/{dispatchId}',
    handler: 'get-message',
    scope: 'messages:read',
    access: { table: 'read' },
    summary: 'Read one message status',
  },
} as const satisfies Record<string, RouteDefinition>;

export type RouteId = keyof typeof routes;

export const routeEntries = Object.entries(routes) as [RouteId, RouteDefinition][];
