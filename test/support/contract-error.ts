import { errorCodes } from '../../lambdas/shared/errors';

/**
 * Asserts a rejection is the contract's error body (docs/api.md#errors): exactly `success`,
 * `error`, `message` and `requestId`, a known code, and the HTTP status that code carries.
 * Returns a description of what is wrong, or undefined, so property tests can report it.
 */
export function contractErrorProblem(status: number, body: unknown): string | undefined {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) return `body is not an object: ${JSON.stringify(body)}`;
  const { success, error, message, requestId, ...others } = body as Record<string, unknown>;
  if (Object.keys(others).length) return `unexpected properties ${Object.keys(others).join(', ')}`;
  if (success !== false) return 'success is not false';
  if (typeof error !== 'string' || !(error in errorCodes)) return `unknown error code ${String(error)}`;
  if (errorCodes[error as keyof typeof errorCodes] !== status) return `error ${error} came with status ${status}`;
  if (typeof message !== 'string' || !message.trim()) return 'message is empty';
  if (typeof requestId !== 'string' || !requestId) return 'requestId is missing';
  return undefined;
}
