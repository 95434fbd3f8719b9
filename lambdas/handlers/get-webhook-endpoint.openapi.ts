import type { OperationDoc } from '../http/operation-doc';
import { webhookEndpoint } from './openapi-examples';

/** docs/openapi.json on this route, beyond its table entry and schemas (lambdas/http/operation-doc.ts). */
export const operation: OperationDoc = {
  tag: 'Webhook endpoints',
  description: 'An unknown endpoint and another workspace’s are the same 404. The secret is never shown here.',
  errors: ['not_found'],
  examples: { response: { ...webhookEndpoint, status: 'disabled', disabledReason: 'gone', updatedAt: '2026-11-04T08:00:00.000Z' } },
};
