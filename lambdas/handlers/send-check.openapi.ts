import type { OperationDoc } from '../http/operation-doc';
import { DISPATCH_ID } from './openapi-examples';

/** docs/openapi.json on this route, beyond its table entry and schemas (lambdas/http/operation-doc.ts). */
export const operation: OperationDoc = {
  tag: 'Messages',
  description: 'Whether a template went to a number: the newest dispatch that is not failed or canceled, over the whole history or one WIB `date`.',
  examples: { response: { sent: true, dispatchId: DISPATCH_ID, submittedAt: '2026-11-03T02:14:00.000Z' } },
};
