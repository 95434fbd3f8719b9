import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import * as z from 'zod';
import { repeatedTemplateIds, storableTemplateSchema } from '../../../lambdas/domain/templates/template';
import { removeTemplateStoredAsWritten, saveTemplate, versionsHeldElsewhere } from '../../../lambdas/domain/templates/template-repository';
import { syncTemplates, TemplateSyncError } from '../../../lambdas/domain/templates/template-sync';
import { SecretsProvider } from '@aws-lambda-powertools/parameters/secrets';
import { accessTokenInSecret } from '../../../lambdas/domain/providers/whatsapp-credentials';
import type { Store } from '../../../lambdas/shared/store';
import { config } from '../../../lambdas/shared/config';
import { AdminError, defineCommand, option, UsageError } from '../command';
import { requireWorkspace } from './workspace-exists';
import { issueLine } from '../../../lambdas/shared/zod-issues';
import { strictly } from '../../../lambdas/shared/zod-strict';

/** A template as a file writes it: a field the format does not define is refused, as in a seed file. */
const fileTemplateSchema = strictly(storableTemplateSchema);

/** A template file: `{ "templates": [...] }` in the seed file's template format, or a bare array. */
const templateFileSchema = z
  .union([z.array(fileTemplateSchema), z.object({ templates: z.array(fileTemplateSchema) }).transform(({ templates }) => templates)])
  .refine((templates) => templates.length > 0, 'holds no templates')
  .superRefine((templates, ctx) => {
    for (const issue of repeatedTemplateIds(templates)) ctx.addIssue({ code: 'custom', ...issue });
  });

export const templateCommands = [
  defineCommand({
    name: 'templates import',
    synopsis: '--workspace ID --file templates.json',
    summary: 'Imports templates from a JSON file; importing a template again replaces it.',
    options: z.object({ workspace: option.text(), file: option.text() }),
    async run({ workspace, file }, { store, env }) {
      // The file first: a mistake in it is the command line's (exit 2), found before the table is read.
      let raw: unknown;
      try {
        // `npm run admin` runs in the project's folder; a relative path is the operator's, from where they ran npm.
        raw = JSON.parse(readFileSync(resolve(env.INIT_CWD ?? process.cwd(), file), 'utf8'));
      } catch (error) {
        throw new UsageError(`Cannot read ${file}: ${error instanceof Error ? error.message : String(error)}`);
      }
      const parsed = templateFileSchema.safeParse(raw);
      if (!parsed.success) throw new UsageError(`${file} is not a template list: ${issueLine(parsed.error)}`);
      await requireWorkspace(store, workspace);
      // A version id another template of the workspace holds would be taken from it: none is written then.
      const taken = await versionsHeldElsewhere(workspace, parsed.data, store);
      if (taken.length) {
        throw new AdminError('version_taken', `${taken.map(({ id, holder }) => `version ${id} is template ${holder}'s`).join('; ')}: a version id names one version of the workspace, so nothing was imported`);
      }
      // The ids as the file writes them: an import before decision 214 stored a template under its id so.
      const written = (Array.isArray(raw) ? raw : (raw as { templates: unknown[] }).templates) as { id: string }[];
      const replaced: (string | undefined)[] = [];
      for (const [t, template] of parsed.data.entries()) {
        await saveTemplate(workspace, template, store);
        // Saved first: an import stopped between the two is run again, and no moment has neither.
        replaced.push((await removeTemplateStoredAsWritten(workspace, written[t]!.id, store)) ? written[t]!.id : undefined);
      }
      return {
        data: parsed.data.map(({ id, displayName, status, category, versions }, t) => ({ id, displayName, status, category: category ?? null, versions: versions.length, ...(replaced[t] ? { replaced: replaced[t] } : {}) })),
        lines: parsed.data.map(
          (template, t) =>
            `Imported ${template.id} ${template.displayName} (${template.status}, ${template.versions.length} version(s))${replaced[t] ? `, replacing the copy stored as ${replaced[t]}` : ''}`,
        ),
      };
    },
  }),
  defineCommand({
    name: 'templates sync',
    synopsis: '--workspace ID [--whatsapp-secret NAME]',
    summary:
      "Reads every template of the workspace's WhatsApp Business Account and upserts them (a changed one is a new version); a synced one Meta no longer lists is marked DELETED. " +
      'The token: the Secrets Manager secret NAME (a deployed stack: messaging-api/whatsapp), else WHATSAPP_ACCESS_TOKEN; the Graph API: GRAPH_API_BASE_URL.',
    options: z.object({ workspace: option.text(), 'whatsapp-secret': option.text().optional() }),
    async run({ workspace, 'whatsapp-secret': secretName }, { store, clock, env }) {
      await requireWorkspace(store, workspace);
      const token = await graphToken(secretName, env, store);
      try {
        const summary = await syncTemplates(workspace, {
          store,
          // A live clock: a sync of a large account runs minutes, and a template a webhook read from
          // Meta meanwhile is newer than its list only by the time it was read (decision 199).
          now: clock,
          graph: { baseUrl: config.GRAPH_API_BASE_URL, timeoutMs: config.PROVIDER_TIMEOUT_MS },
          accessToken: () => Promise.resolve(token),
        });
        return { data: summary, lines: [JSON.stringify(summary)] };
      } catch (error) {
        if (error instanceof TemplateSyncError) throw new UsageError(`${error.message} (set it with \`workspace update --whatsapp-business-account-id\`)`);
        throw error;
      }
    },
  }),
];

/**
 * The Graph API token a sync sends: the access token in the stack's secret, read in the region the
 * target table is in (`--region`, or where `--stack` was found), or else WHATSAPP_ACCESS_TOKEN. A
 * sync needs nothing else of the WhatsApp app: not the webhook's app secret or verify token.
 */
async function graphToken(secretName: string | undefined, env: Record<string, string | undefined>, store: Store): Promise<string> {
  if (!secretName) {
    if (!env.WHATSAPP_ACCESS_TOKEN) throw new UsageError('WHATSAPP_ACCESS_TOKEN is not set: name the stack’s secret with --whatsapp-secret, or set the token');
    return env.WHATSAPP_ACCESS_TOKEN;
  }
  const secrets = new SecretsProvider({ clientConfig: { region: await store.db.config.region() } });
  return accessTokenInSecret(secretName, await secrets.get(secretName));
}
