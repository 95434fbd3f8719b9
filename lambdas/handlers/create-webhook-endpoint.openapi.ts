import { WEBHOOK_ENDPOINTS_PER_WORKSPACE } from '../domain/webhooks/webhook-endpoint';
import type { OperationDoc } from '../http/operation-doc';
import { webhookEndpoint } from './openapi-examples';

/** docs/openapi.json on this route, beyond its table entry and schemas (lambdas/http/operation-doc.ts). */
export const operation: OperationDoc = {
  tag: 'Webhook endpoints',
  description:
    'Registers a URL to receive the workspace’s events, signed with the secret in this answer (the only time it is shown). Without `events` ' +
    '(or with `null`) the endpoint receives every type, including types added later. The URL must be https to a host whose every address ' +
    'is public (not private, loopback, link-local, carrier-grade NAT, unique local, multicast or a cloud metadata address): anything else ' +
    `is 422 \`validation_failed\` naming why. A workspace has at most ${WEBHOOK_ENDPOINTS_PER_WORKSPACE} endpoints: one more is 409 \`webhook_endpoint_limit_reached\`. ` +
    'With an `Idempotency-Key`, a repeat of the same request within 24 h returns the first 201 answer, secret included, with `Idempotent-Replayed: true`, ' +
    'and makes no second endpoint; the same key with another body is 409 `idempotency_conflict`.',
  successStatus: 201,
  errors: ['webhook_endpoint_limit_reached', 'idempotency_conflict'],
  examples: {
    request: { url: webhookEndpoint.url, events: webhookEndpoint.events, description: webhookEndpoint.description },
    response: { ...webhookEndpoint, secret: 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw8dr6aD2Hj0o=' },
  },
};
