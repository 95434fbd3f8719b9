import * as z from './zod';
import { errorCodes, type ErrorCode } from './errors';

/**
 * The contract's error body (docs/api.md#errors): these four properties and no others. It types
 * `errorBody()` and documents the body (docs/openapi.json); no function parses one, so it lives
 * apart from errors.ts, and a function that validates nothing (GET /health) carries no zod.
 */
export const errorBodySchema = z.strictObject({
  success: z.literal(false),
  error: z.enum(Object.keys(errorCodes) as [ErrorCode, ...ErrorCode[]]),
  message: z.string().check(z.minLength(1)),
  requestId: z.optional(z.string().check(z.minLength(1))),
});

export type ErrorBody = z.output<typeof errorBodySchema>;
