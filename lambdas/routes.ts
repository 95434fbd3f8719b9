import type { Scope } from './shared/scopes';

/** Body encodings a route accepts (docs/api.md#send-a-message: send takes all three), by their media type. */
export const MEDIA_TYPES = {
  json: 'application/json',
  form: 'application/x-www-form-urlencoded',
  multipart: 'multipart/form-data',
} as const;

export type BodyEncoding = keyof typeof MEDIA_TYPES;

/**
 * Request media types API Gateway passes to Lambda base64-encoded (the stack's binaryMediaTypes,
 * mirrored by the local server): multipart bodies must reach the parser byte for byte.
 */
export const BINARY_MEDIA_TYPES = [MEDIA_TYPES.multipart] as const;

export interface RouteDefinition {
  method: 'GET' | 'POST' | 'PATCH' | 'DELETE';
  /** API Gateway resource path; `{name}` is a path parameter. */
  path: string;
  /**
   * Handler module under `lambdas/handlers/`, exporting `handler` and its `schemas`; beside it,
   * `<handler>.openapi.ts` holds what the OpenAPI document says beyond them (never bundled).
   */
  handler: string;
  /** Scope the API key needs; `null` for unauthenticated routes. */
  scope: Scope | null;
  /** Accepted request bodies; absent for routes without a body. */
  body?: readonly BodyEncoding[];
  /**
   * Callers sign the raw body instead of sending an API key (the WhatsApp webhook): the stack
   * checks the signature before any parser reads the body.
   */
  signed?: boolean;
  /**
   * Stream the response (API Gateway response streaming): for bodies that can outgrow Lambda's
   * 6 MB buffered limit, such as a 100 000-row report page, an unpaged template list or a summary
   * whose tags were each used with thousands of templates (decisions 24, 170, 173 and 229).
   */
  streaming?: boolean;
  /** What the function may touch: the stack grants exactly this, nothing more. */
  access: { table?: 'read' | 'readWrite'; queue?: 'send'; webhookQueue?: 'send'; secrets?: 'whatsapp' | 'cursor'; queueMetrics?: 'read'; graphApi?: 'read' };
  summary: string;
}

/**
 * How long a route's function may run (its Lambda timeout), in seconds: 10 for a buffered route,
 * well inside API Gateway's 29 s; 2 minutes for a streamed one (a 100 000-row report page). Middy
 * answers 504 `upstream_timeout` just before it; the local runtime gives each route the same time.
 */
export const routeTimeoutSeconds = (route: Pick<RouteDefinition, 'streaming'>): number => (route.streaming ? 120 : 10);

/*
 * One const per route, gathered into `routes` below: a handler imports the module as a namespace
 * (`import * as routes from '../routes'`) and names its own route, so its bundle carries that
 * route and not the table (about 5 KB in every function).
 */

export const health = {
  method: 'GET',
  path: '/health',
  handler: 'health',
  scope: null,
  access: {},
  summary: 'Service availability',
} as const satisfies RouteDefinition;

export const listTemplates = {
  method: 'GET',
  path: '/v1/message-templates',
  handler: 'list-templates',
  scope: 'templates:read',
  streaming: true,
  access: { table: 'read' },
  summary: 'List approved message templates',
} as const satisfies RouteDefinition;

export const getTemplate = {
  method: 'GET',
  path: '/v1/message-templates/{templateId}',
  handler: 'get-template',
  scope: 'templates:read',
  access: { table: 'read' },
  summary: 'Read one approved message template',
} as const satisfies RouteDefinition;

export const previewTemplate = {
  method: 'POST',
  // The contract names this segment templateVersionId. API Gateway allows one variable name per
  // path level, and GET /v1/message-templates/{templateId} holds this level (docs/decisions.md).
  path: '/v1/message-templates/{templateId}/preview',
  handler: 'preview-template',
  scope: 'templates:read',
  body: ['json'],
  access: { table: 'read' },
  summary: 'Render a template version with variable values',
} as const satisfies RouteDefinition;

export const sendMessage = {
  method: 'POST',
  path: '/v1/messages',
  handler: 'send-message',
  scope: 'messages:send',
  body: ['json', 'form', 'multipart'],
  access: { table: 'readWrite', queue: 'send' },
  summary: 'Queue a WhatsApp template message',
} as const satisfies RouteDefinition;

export const deliveryStatus = {
  method: 'POST',
  path: '/v1/messages/delivery-status',
  handler: 'delivery-status',
  scope: 'messages:read',
  body: ['json'],
  streaming: true,
  access: { table: 'read' },
  summary: 'Delivery events of up to 500 phone numbers',
} as const satisfies RouteDefinition;

export const trackingTags = {
  method: 'GET',
  path: '/v1/messages/tracking-tags',
  handler: 'tracking-tags',
  scope: 'messages:read',
  streaming: true,
  access: { table: 'read' },
  summary: 'Tracking tags used in a period, with dispatch counts',
} as const satisfies RouteDefinition;

export const trackingSummary = {
  method: 'GET',
  path: '/v1/messages/tracking-report/summary',
  handler: 'tracking-summary',
  scope: 'messages:read',
  streaming: true,
  access: { table: 'read' },
  summary: 'Dispatches, credits and rupiah per tracking tag and template',
} as const satisfies RouteDefinition;

export const trackingDispatches = {
  method: 'GET',
  path: '/v1/messages/tracking-report/dispatches',
  handler: 'tracking-dispatches',
  scope: 'messages:read',
  streaming: true,
  access: { table: 'read' },
  summary: 'SENT or DELIVERED dispatches by tracking tag or for the workspace',
} as const satisfies RouteDefinition;

export const sendCheck = {
  method: 'GET',
  path: '/v1/messages/send-check',
  handler: 'send-check',
  scope: 'messages:read',
  access: { table: 'read' },
  summary: 'Whether a template was sent to a number',
} as const satisfies RouteDefinition;

export const whatsappWebhookVerify = {
  method: 'GET',
  path: '/webhooks/whatsapp',
  handler: 'whatsapp-webhook-verify',
  scope: null,
  access: { secrets: 'whatsapp' },
  summary: 'WhatsApp webhook verification handshake',
} as const satisfies RouteDefinition;

export const whatsappWebhook = {
  method: 'POST',
  path: '/webhooks/whatsapp',
  handler: 'whatsapp-webhook',
  scope: null,
  body: ['json'],
  signed: true,
  // The Graph API: an edited template is read again (decision 147).
  access: { table: 'readWrite', secrets: 'whatsapp', graphApi: 'read' },
  summary: 'WhatsApp status callbacks and inbound messages (signed)',
} as const satisfies RouteDefinition;

export const listConversations = {
  method: 'GET',
  path: '/v1/conversations',
  handler: 'list-conversations',
  scope: 'messages:read',
  access: { table: 'read', secrets: 'cursor' },
  summary: 'Conversations, latest activity first, or the one with a phone number',
} as const satisfies RouteDefinition;

export const getConversation = {
  method: 'GET',
  path: '/v1/conversations/{conversationId}',
  handler: 'get-conversation',
  scope: 'messages:read',
  access: { table: 'read' },
  summary: 'Read one conversation',
} as const satisfies RouteDefinition;

export const conversationMessages = {
  method: 'GET',
  path: '/v1/conversations/{conversationId}/messages',
  handler: 'conversation-messages',
  scope: 'messages:read',
  access: { table: 'read', secrets: 'cursor' },
  summary: 'Message history of a conversation, newest first',
} as const satisfies RouteDefinition;

export const getMessage = {
  method: 'GET',
  path: '/v1/messages/{dispatchId}',
  handler: 'get-message',
  scope: 'messages:read',
  access: { table: 'read' },
  summary: 'Read one message status',
} as const satisfies RouteDefinition;

// Webhook endpoints (docs/api.md#webhook-endpoints): where a workspace's events are pushed.
export const createWebhookEndpoint = {
  method: 'POST',
  path: '/v1/webhook-endpoints',
  handler: 'create-webhook-endpoint',
  scope: 'webhooks:manage',
  body: ['json'],
  access: { table: 'readWrite' },
  summary: 'Register a URL to receive the workspace’s events',
} as const satisfies RouteDefinition;

export const listWebhookEndpoints = {
  method: 'GET',
  path: '/v1/webhook-endpoints',
  handler: 'list-webhook-endpoints',
  scope: 'webhooks:manage',
  access: { table: 'read' },
  summary: 'The workspace’s webhook endpoints',
} as const satisfies RouteDefinition;

export const getWebhookEndpoint = {
  method: 'GET',
  path: '/v1/webhook-endpoints/{id}',
  handler: 'get-webhook-endpoint',
  scope: 'webhooks:manage',
  access: { table: 'read' },
  summary: 'Read one webhook endpoint',
} as const satisfies RouteDefinition;

export const updateWebhookEndpoint = {
  method: 'PATCH',
  path: '/v1/webhook-endpoints/{id}',
  handler: 'update-webhook-endpoint',
  scope: 'webhooks:manage',
  body: ['json'],
  access: { table: 'readWrite' },
  summary: 'Change a webhook endpoint’s URL, events or description, or re-enable it',
} as const satisfies RouteDefinition;

export const deleteWebhookEndpoint = {
  method: 'DELETE',
  path: '/v1/webhook-endpoints/{id}',
  handler: 'delete-webhook-endpoint',
  scope: 'webhooks:manage',
  access: { table: 'readWrite' },
  summary: 'Delete a webhook endpoint',
} as const satisfies RouteDefinition;

export const rotateWebhookSecret = {
  method: 'POST',
  path: '/v1/webhook-endpoints/{id}/rotate-secret',
  handler: 'rotate-webhook-secret',
  scope: 'webhooks:manage',
  body: ['json'],
  access: { table: 'readWrite' },
  summary: 'Replace a webhook endpoint’s signing secret, the old one signing on for an overlap',
} as const satisfies RouteDefinition;

// Webhook deliveries (docs/api.md#webhook-events): what became of each event at an endpoint, resends and a test.
export const listWebhookDeliveries = {
  method: 'GET',
  path: '/v1/webhook-endpoints/{id}/deliveries',
  handler: 'list-webhook-deliveries',
  scope: 'webhooks:manage',
  access: { table: 'read', secrets: 'cursor' },
  summary: 'Deliveries of events to one webhook endpoint, newest first',
} as const satisfies RouteDefinition;

export const resendWebhookEvent = {
  method: 'POST',
  path: '/v1/webhook-endpoints/{id}/deliveries/{eventId}/resend',
  handler: 'resend-webhook-event',
  scope: 'webhooks:manage',
  access: { table: 'read', webhookQueue: 'send' },
  summary: 'Deliver one event to the endpoint again',
} as const satisfies RouteDefinition;

export const resendWebhookEvents = {
  method: 'POST',
  path: '/v1/webhook-endpoints/{id}/resend',
  handler: 'resend-webhook-events',
  scope: 'webhooks:manage',
  body: ['json'],
  access: { table: 'read', webhookQueue: 'send' },
  summary: 'Deliver every event since a time to the endpoint again',
} as const satisfies RouteDefinition;

export const testWebhookEndpoint = {
  method: 'POST',
  path: '/v1/webhook-endpoints/{id}/test',
  handler: 'test-webhook-endpoint',
  scope: 'webhooks:manage',
  access: { table: 'read', webhookQueue: 'send' },
  summary: 'Send a test event to the endpoint',
} as const satisfies RouteDefinition;

/**
 * The one route table. It drives the CDK stack (one function and one API method per entry),
 * the local server, the OpenAPI document and the route tests.
 */
export const routes = {
  health,
  listTemplates,
  getTemplate,
  previewTemplate,
  sendMessage,
  deliveryStatus,
  trackingTags,
  trackingSummary,
  trackingDispatches,
  sendCheck,
  whatsappWebhookVerify,
  whatsappWebhook,
  listConversations,
  getConversation,
  conversationMessages,
  getMessage,
  createWebhookEndpoint,
  listWebhookEndpoints,
  getWebhookEndpoint,
  updateWebhookEndpoint,
  deleteWebhookEndpoint,
  rotateWebhookSecret,
  listWebhookDeliveries,
  resendWebhookEvent,
  resendWebhookEvents,
  testWebhookEndpoint,
} as const satisfies Record<string, RouteDefinition>;

export type RouteId = keyof typeof routes;

export const routeEntries = /* @__PURE__ */ Object.entries(routes) as [RouteId, RouteDefinition][];

/** The names of a path's `{parameters}`: `'/v1/messages/{dispatchId}'` → `'dispatchId'` (any name for a path not known until run time). */
export type PathParameterName<P extends string> = string extends P ? string : P extends `${string}{${infer Name}}${infer Rest}` ? Name | PathParameterName<Rest> : never;

/**
 * A route's path with its parameters filled in and encoded, for links and callers:
 * `pathOf(routes.getMessage, { dispatchId })` → `/v1/messages/3f1c…`. Prefix the API's base URL.
 */
export function pathOf<P extends string>(route: { path: P }, ...[parameters]: [PathParameterName<P>] extends [never] ? [] : [Record<PathParameterName<P>, string>]): string {
  const values: Record<string, string> = parameters ?? {};
  return route.path.replace(/\{(\w+)\}/g, (_, name: string) => {
    const value = values[name];
    if (value === undefined) throw new Error(`${route.path} needs its ${name} parameter`);
    return encodeURIComponent(value);
  });
}
