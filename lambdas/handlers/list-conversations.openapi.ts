import type { OperationDoc } from '../http/operation-doc';
import { conversation } from './openapi-examples';

/** docs/openapi.json on this route, beyond its table entry and schemas (lambdas/http/operation-doc.ts). */
export const operation: OperationDoc = {
  tag: 'Conversations',
  description: 'Conversations, latest activity first, a cursor page at a time; with `phone` (normalized to E.164), the one conversation with that number.',
  examples: { response: { items: [conversation], nextCursor: null } },
};
