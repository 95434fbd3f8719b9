import { WEBHOOK_ENDPOINTS_PER_WORKSPACE } from '../domain/webhooks/webhook-endpoint';
import type { OperationDoc } from '../http/operation-doc';

/** docs/openapi.json on this route, beyond its table entry and schemas (lambdas/http/operation-doc.ts). */
export const operation: OperationDoc = {
  tag: 'Webhook endpoints',
  description: `Deletes the endpoint: no further events are sent to it, and it no longer counts towards the limit of ${WEBHOOK_ENDPOINTS_PER_WORKSPACE}. An unknown endpoint and another workspace’s are the same 404.`,
  successStatus: 204,
  errors: ['not_found'],
};
