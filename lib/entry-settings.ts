import * as z from 'zod';
import { issueLine } from '../lambdas/shared/zod-issues';

const NOT_A_PORT = 'a port number from 0 to 65535';

/** A listening port from the environment: 0 takes any free one. */
export const portSetting = (fallback: number) => z.coerce.number({ error: NOT_A_PORT }).int(NOT_A_PORT).min(0, NOT_A_PORT).max(65_535, NOT_A_PORT).default(fallback);

/**
 * A local entry point's settings (`npm start`, `npm run webhook-receiver`) from the environment,
 * or, when one does not fit, one line naming each that does not and exit 1: a mistyped variable
 * is the user's to mend, and a stack trace would bury it. Values are not echoed (one may be a secret).
 */
export function readSettings<S extends z.ZodType>(command: string, schema: S, env: NodeJS.ProcessEnv = process.env): z.output<S> {
  const parsed = schema.safeParse(env);
  if (parsed.success) return parsed.data;
  console.error(`${command}: ${issueLine(parsed.error)}`);
  process.exit(1);
}
