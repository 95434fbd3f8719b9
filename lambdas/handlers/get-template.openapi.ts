import type { OperationDoc } from '../http/operation-doc';
import { demoTemplate } from './openapi-examples';

/** docs/openapi.json on this route, beyond its table entry and schemas (lambdas/http/operation-doc.ts). */
export const operation: OperationDoc = {
  tag: 'Templates',
  description: 'An unknown template and another workspace’s template are the same 404.',
  errors: ['not_found'],
  examples: { response: demoTemplate },
};
