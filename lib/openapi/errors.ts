import type { RouteDefinition } from '../../lambdas/routes';
import { WEBHOOK_ENDPOINTS_PER_WORKSPACE } from '../../lambdas/domain/webhooks/webhook-endpoint';
import { errorCodes, type ErrorCode } from '../../lambdas/shared/errors';

/** When each code is answered (docs/api.md#errors). */
export const errorMeanings: Record<ErrorCode, string> = {
  bad_request: 'a request API Gateway (or the local server) could not read: a path or query that is not percent-encoded UTF-8, or (locally) a request line and headers over 16 KB',
  unauthorized: 'the API key is missing, malformed, unknown, revoked or expired',
  forbidden: 'the API key lacks the operation’s scope',
  not_found: 'an unknown id, or an id of another workspace (the two look the same)',
  idempotency_conflict: 'the Idempotency-Key was used with another body, or its first request is still in flight',
  duplicate_send: 'the workspace allows one send of a template to a number per WIB day, and it was made',
  webhook_endpoint_limit_reached: `the workspace has as many webhook endpoints as it may (${WEBHOOK_ENDPOINTS_PER_WORKSPACE}); delete one first`,
  payload_too_large: 'the body is over 2 MiB (a signed webhook’s, or one sent to a route that reads none: over Lambda’s 6 MB invoke payload)',
  validation_failed: 'malformed JSON, an unsupported Content-Type, a malformed id, or a field breaking the contract (the message names it)',
  unsupported_channel_content: 'a channel and content type that are valid but not delivered (only whatsapp with template is)',
  template_not_found: 'the template does not exist, is not APPROVED, or belongs to another workspace',
  template_not_ready: 'the template has no READY version',
  missing_variables: 'a required template variable is missing',
  recipient_opted_out: 'the template is MARKETING and the recipient opted out of this workspace’s marketing messages',
  rate_limited: 'stage throttling, or the workspace’s send rate (then with Retry-After)',
  internal_error: 'a fault on our side; the cause is logged, never returned',
  upstream_unavailable: 'the dispatch queue refused the message; nothing will be sent',
  service_unavailable: 'a dependency (the table, the queue) is briefly unavailable; retry after Retry-After',
  upstream_timeout: 'the function did not answer in time',
};

/**
 * Errors API Gateway (or the local server, playing it) answers itself on any route
 * (lib/constructs/gateway-responses.ts): a request it cannot read, any body over its limits (a
 * route that reads none is sent one as easily), throttling, the function's failure or timeout.
 */
const gatewayErrors: { status: number; code: ErrorCode }[] = [
  { status: 400, code: 'bad_request' },
  { status: 413, code: 'payload_too_large' },
  { status: 429, code: 'rate_limited' },
  { status: 502, code: 'internal_error' },
  { status: 504, code: 'upstream_timeout' },
];

/** Error codes whose answer carries `Retry-After`. */
export const retryAfterCodes: ReadonlySet<ErrorCode> = new Set(['rate_limited', 'service_unavailable']);

/**
 * Every error an operation can answer, grouped by status: those its kind of route always can
 * (authentication, input validation, the table or queue being briefly away, the gateway's own,
 * body limits among them), and those its handler raises (`own`).
 */
export function errorsOf(route: RouteDefinition, own: readonly ErrorCode[]): Map<number, ErrorCode[]> {
  const pairs: { status: number; code: ErrorCode }[] = [];
  const add = (code: ErrorCode, status: number = errorCodes[code]) => pairs.push({ status, code });
  if (route.scope) {
    add('unauthorized');
    add('forbidden');
  }
  // Every route: one that reads no body refuses a body with fields (decision 176).
  add('validation_failed');
  for (const code of own) add(code);
  add('internal_error');
  if (route.access.table || route.access.queue || route.access.secrets) add('service_unavailable');
  for (const { status, code } of gatewayErrors) add(code, status);

  const byStatus = new Map<number, ErrorCode[]>();
  for (const { status, code } of pairs.sort((a, b) => a.status - b.status)) {
    const codes = byStatus.get(status) ?? [];
    if (!codes.includes(code)) codes.push(code);
    byStatus.set(status, codes);
  }
  return byStatus;
}
