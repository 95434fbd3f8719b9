import { WEBHOOK_ENDPOINTS_PER_WORKSPACE } from '../domain/webhooks/webhook-endpoint';
import type { OperationDoc } from '../http/operation-doc';
import { webhookEndpoint } from './openapi-examples';

/** docs/openapi.json on this route, beyond its table entry and schemas (lambdas/http/operation-doc.ts). */
export const operation: OperationDoc = {
  tag: 'Webhook endpoints',
  description: `Every endpoint of the workspace, oldest first, in one page (a workspace has at most ${WEBHOOK_ENDPOINTS_PER_WORKSPACE}). Secrets are never listed.`,
  examples: { response: { items: [webhookEndpoint] } },
};
