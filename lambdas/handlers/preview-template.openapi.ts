import type { OperationDoc } from '../http/operation-doc';
import { DEMO_VERSION_ID } from './openapi-examples';

/** docs/openapi.json on this route, beyond its table entry and schemas (lambdas/http/operation-doc.ts). */
export const operation: OperationDoc = {
  tag: 'Templates',
  description:
    'Renders a template version with variable values. The contract names the path segment `templateVersionId`; it holds a template version id ' +
    '(API Gateway allows one variable name per path level, and `GET /v1/message-templates/{templateId}` holds this level).',
  errors: ['not_found', 'missing_variables'],
  examples: {
    request: { variables: [{ name: 'name', value: 'Budi' }, { name: 'order', value: 'A-1042' }] },
    response: { templateVersionId: DEMO_VERSION_ID, preview: 'Halo Budi, pesanan A-1042 sudah dikirim.' },
  },
};
