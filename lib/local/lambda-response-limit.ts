import { BUFFERED_RESPONSE_LIMIT_BYTES } from '../../lambdas/http/responses';

/**
 * Lambda's buffered response limit (lambdas/http/responses.ts, where the history page is held under
 * it, decision 229). The local server and the testing kit hold a route to it, as the deployed stack
 * does, so a body that would outgrow it fails here first (decision 170).
 */
export { BUFFERED_RESPONSE_LIMIT_BYTES };

/** The error Lambda reports for a buffered response over the limit, or undefined when it fits. */
export function bufferedResponseError(result: unknown): string | undefined {
  const bytes = Buffer.byteLength(JSON.stringify(result));
  if (bytes <= BUFFERED_RESPONSE_LIMIT_BYTES) return undefined;
  return `Function.ResponseSizeTooLarge: response payload size (${bytes} bytes) exceeded maximum allowed payload size (${BUFFERED_RESPONSE_LIMIT_BYTES} bytes); a body this large must be streamed (streaming in lambdas/routes.ts)`;
}

/**
 * Lambda's synchronous invoke payload: the event as JSON, body included. API Gateway takes bodies up
 * to 10 MB but cannot invoke a function with a larger event than this, and answers 413; so does the
 * local server.
 */
export const INVOKE_REQUEST_LIMIT_BYTES = 6_291_456;
