/**
 * Reading the seed file. Kept free of repositories (and so of configuration) because the
 * runtime reads the seed before it has set the environment handlers are configured from.
 */
import { readFileSync } from 'node:fs';
import * as z from '../../lambdas/shared/zod';
import { templateInputSchema } from '../../lambdas/domain/templates/template';
import { workspaceInputSchema } from '../../lambdas/domain/workspaces/workspace';
import { scopes } from '../../lambdas/shared/scopes';
import { LocalRuntimeError } from './dynamodb-local';
import { issueLine } from '../../lambdas/shared/zod-issues';

/** The seed file format of docs/decisions.md 42: keys in plain text here, stored only as SHA-256 hashes. */
export const seedSchema = z.object({
  workspaces: z.array(
    z.extend(workspaceInputSchema, {
      apiKeys: z._default(
        z.array(z.object({ key: z.string().check(z.minLength(8)), name: z.string().check(z.minLength(1)), scopes: z.array(z.enum(scopes)).check(z.minLength(1)), expiresAt: z.optional(z.iso.datetime()) })),
        [],
      ),
      templates: z._default(z.array(templateInputSchema), []),
    }),
  ),
});

export type Seed = z.infer<typeof seedSchema>;

export function readSeed(path: string): Seed {
  let raw: unknown;
  try {
    raw = JSON.parse(readFileSync(path, 'utf8'));
  } catch (error) {
    throw new LocalRuntimeError(`Cannot read the seed file ${path}: ${(error as Error).message}`);
  }
  const parsed = seedSchema.safeParse(raw);
  if (!parsed.success) {
    throw new LocalRuntimeError(`The seed file ${path} is invalid: ${issueLine(parsed.error)}`);
  }
  return parsed.data;
}
