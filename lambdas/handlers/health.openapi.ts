import * as z from '../shared/zod';
import type { OperationDoc } from '../http/operation-doc';
import { SERVICE_NAME } from './health';

/**
 * GET /health reads no input, so its one schema, the body it answers with, lives here rather than
 * in the handler: the health function then carries no zod at all (row 1a of `npm run bench`:
 * 40 KB). The handler is typed by it all the same.
 */
export const schemas = {
  response: z.strictObject({ success: z.literal(true), data: z.strictObject({ status: z.literal('ok'), service: z.literal(SERVICE_NAME) }) }),
};

/** docs/openapi.json on this route, beyond its table entry and schemas (lambdas/http/operation-doc.ts). */
export const operation: OperationDoc = {
  tag: 'Health',
  description: 'Answers once the service can take requests. No API key.',
  examples: { response: { success: true, data: { status: 'ok', service: SERVICE_NAME } } },
};
