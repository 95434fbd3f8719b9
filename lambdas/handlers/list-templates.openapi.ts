import type { OperationDoc } from '../http/operation-doc';
import { demoTemplate } from './openapi-examples';

/** docs/openapi.json on this route, beyond its table entry and schemas (lambdas/http/operation-doc.ts). */
export const operation: OperationDoc = {
  tag: 'Templates',
  description: 'The workspace’s APPROVED templates, each with its versions.',
  examples: { response: { items: [demoTemplate] } },
};
