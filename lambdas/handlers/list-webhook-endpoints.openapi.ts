import type { OperationDoc } from '../http/operation-doc';
import { webhookEndpoint } from './openapi-examples';

/** docs/openapi.json on this route, beyond its table entry and schemas (lambdas/http/operation-doc.ts). */
export const operation: OperationDoc = {
  tag: 'Webhook endpoints',
  description: 'Every endpoint of the workspace, oldest first, in one page (a workspace has at most 10). Secrets are never listed.',
  examples: { response: { items: [webhookEndpoint] } },
};
