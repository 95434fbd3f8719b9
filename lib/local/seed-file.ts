/**
 * Reading the seed file. Kept free of repositories (and so of configuration) because the
 * runtime reads the seed before it has set the environment handlers are configured from.
 */
import { readFileSync } from 'node:fs';
import * as z from '../../lambdas/shared/zod';
import { repeatedTemplateIds, storableTemplateSchema } from '../../lambdas/domain/templates/template';
import { bindingSettings, workspaceInputSchema } from '../../lambdas/domain/workspaces/workspace';
import { instant } from '../../lambdas/domain/time/instant';
import { strictly } from '../../lambdas/shared/zod-strict';
import { scopes } from '../../lambdas/shared/scopes';
import { LocalRuntimeError } from './dynamodb-local';
import { issueLine } from '../../lambdas/shared/zod-issues';
import { isWellFormedApiKey } from '../../lambdas/domain/api-keys/api-key-secret';
import { NOT_PRINTABLE, PRINTABLE } from '../../lambdas/shared/unicode-text';

const seedApiKeySchema = z.object({
  key: z.string().check(z.refine(isWellFormedApiKey, 'an API key is "msk_" and 8 to 200 letters, digits or "_", as every request checks it')),
  name: z.string().check(z.minLength(1), z.regex(PRINTABLE, NOT_PRINTABLE)),
  scopes: z.array(z.enum(scopes)).check(z.minLength(1)),
  // Any offset, as `key create --expires-at` takes it; saveApiKey stores it in UTC.
  expiresAt: z.optional(instant()),
});

/**
 * The seed file format of docs/decisions.md 42: keys in plain text here, stored only as SHA-256
 * hashes. Read strictly, to its settings, templates and versions: a field it does not define is
 * refused (a misspelt one would be dropped silently, its default taken). What the table keeps once
 * is given once: a workspace id, a key, a workspace's template and version ids, and a WhatsApp
 * number or business account, which binds one workspace (decision 239).
 */
export const seedSchema = strictly(z.object({
  workspaces: z.array(
    z.object({
      ...workspaceInputSchema.shape,
      apiKeys: z._default(z.array(seedApiKeySchema), []),
      templates: z._default(z.array(storableTemplateSchema), []),
    }),
  ).check(z.superRefine((workspaces, ctx) => {
    const seen = new Set<string>();
    const givenOnce = (value: string, path: PropertyKey[], what: string) => {
      if (seen.has(value)) ctx.addIssue({ code: 'custom', path, message: what });
      seen.add(value);
    };
    workspaces.forEach((workspace, w) => {
      givenOnce(`workspace ${workspace.id}`, [w, 'id'], `"${workspace.id}" is given twice`);
      workspace.apiKeys.forEach(({ key }, k) => givenOnce(`key ${key}`, [w, 'apiKeys', k, 'key'], 'this key is given twice'));
      for (const setting of bindingSettings) {
        const value = workspace.settings[setting];
        if (value !== undefined) givenOnce(`${setting} ${value}`, [w, 'settings', setting], `"${value}" is given twice: it binds one workspace`);
      }
      for (const { path, message } of repeatedTemplateIds(workspace.templates)) ctx.addIssue({ code: 'custom', path: [w, 'templates', ...path], message });
    });
  })),
}));

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
    throw new LocalRuntimeError(`The seed file ${path} is invalid: ${issueLine(parsed.error, '(file)')}`);
  }
  return parsed.data;
}
