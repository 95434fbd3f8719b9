import type { OperationDoc } from '../http/operation-doc';

/** docs/openapi.json on this route, beyond its table entry and schemas (lambdas/http/operation-doc.ts). */
export const operation: OperationDoc = {
  tag: 'Health',
  description: 'Answers once the service can take requests. No API key.',
  examples: { response: { success: true, data: { status: 'ok', service: 'messaging-api-external' } } },
};
