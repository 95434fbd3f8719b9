import type { OperationDoc } from '../http/operation-doc';
import { conversation } from './openapi-examples';

/** docs/openapi.json on this route, beyond its table entry and schemas (lambdas/http/operation-doc.ts). */
export const operation: OperationDoc = {
  tag: 'Conversations',
  description: 'A missing conversation and another workspace’s are the same 404.',
  errors: ['not_found'],
  examples: { response: conversation },
};
