import type { OperationDoc } from '../http/operation-doc';
import { webhookEndpoint } from './openapi-examples';

/** docs/openapi.json on this route, beyond its table entry and schemas (lambdas/http/operation-doc.ts). */
export const operation: OperationDoc = {
  tag: 'Webhook endpoints',
  description:
    'Changes only the fields the body names. A new `url` is checked by the same rules as on create; `events: null` subscribes to every type; ' +
    '`description: null` removes it; `status: "enabled"` re-enables an endpoint that was disabled (after a 410, or failing for days). ' +
    'An unknown endpoint and another workspace’s are the same 404.',
  errors: ['not_found'],
  examples: {
    request: { status: 'enabled', events: null },
    response: { ...webhookEndpoint, events: null, updatedAt: '2026-11-05T09:30:00.000Z' },
  },
};
