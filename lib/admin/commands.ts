import { readFileSync } from 'node:fs';
import { z } from 'zod';
import { listApiKeys, revokeApiKey, saveApiKey, type ApiKeyRecord } from '../../lambdas/domain/api-keys/api-key-repository';
import { generateApiKey } from '../../lambdas/domain/api-keys/api-key-secret';
import { templateInputSchema } from '../../lambdas/domain/templates/template';
import { saveTemplate } from '../../lambdas/domain/templates/template-repository';
import { syncTemplates, TemplateSyncError, type TemplateSyncDependencies, type TemplateSyncSummary } from '../../lambdas/domain/templates/template-sync';
import { workspaceSettingsSchema } from '../../lambdas/domain/workspaces/workspace';
import { getWorkspace, saveWorkspace } from '../../lambdas/domain/workspaces/workspace-repository';
import { scopes } from '../../lambdas/shared/scopes';
import type { Store } from '../../lambdas/shared/store';

/** A mistake in how the command was called: printed as one line, exit code 2. */
export class UsageError extends Error {
  override name = 'UsageError';
}

export async function createWorkspace(
  store: Store,
  input: { id: string; name: string; rupiahPerCredit: number; settings: z.input<typeof workspaceSettingsSchema> },
  now = new Date(),
) {
  return saveWorkspace({ ...input, settings: workspaceSettingsSchema.parse(input.settings) }, now, store);
}

/** Creates a key and returns its plaintext: shown once, never stored. */
export async function createKey(
  store: Store,
  input: { workspaceId: string; name: string; scopes: string[]; expiresAt?: string; environment?: string },
  now = new Date(),
): Promise<{ plaintext: string; record: ApiKeyRecord }> {
  await requireWorkspace(store, input.workspaceId);
  const parsedScopes = z.array(z.enum(scopes)).min(1).safeParse(input.scopes);
  if (!parsedScopes.success) throw new UsageError(`--scopes takes a comma-separated list of ${scopes.join(', ')}`);
  if (input.expiresAt && Number.isNaN(Date.parse(input.expiresAt))) throw new UsageError('--expires-at takes an ISO date-time');
  const plaintext = generateApiKey(input.environment);
  const record = await saveApiKey(
    plaintext,
    { workspaceId: input.workspaceId, name: input.name, scopes: parsedScopes.data, ...(input.expiresAt ? { expiresAt: new Date(input.expiresAt).toISOString() } : {}) },
    now,
    store,
  );
  return { plaintext, record };
}

export async function listKeys(store: Store, workspaceId: string): Promise<ApiKeyRecord[]> {
  return listApiKeys(workspaceId, store);
}

export async function revokeKey(store: Store, workspaceId: string, keyId: string, now = new Date()): Promise<void> {
  if (!(await revokeApiKey(workspaceId, keyId, now, store))) throw new UsageError(`Workspace ${workspaceId} has no key ${keyId}`);
}

/** Imports templates from a JSON file holding `{ "templates": [...] }` or a bare array. */
export async function importTemplates(store: Store, workspaceId: string, file: string): Promise<string[]> {
  await requireWorkspace(store, workspaceId);
  let raw: unknown;
  try {
    raw = JSON.parse(readFileSync(file, 'utf8'));
  } catch (error) {
    throw new UsageError(`Cannot read ${file}: ${(error as Error).message}`);
  }
  const list = Array.isArray(raw) ? raw : (raw as { templates?: unknown })?.templates;
  const parsed = z.array(templateInputSchema).min(1).safeParse(list);
  if (!parsed.success) throw new UsageError(`${file} is not a template list: ${parsed.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('; ')}`);
  for (const template of parsed.data) await saveTemplate(workspaceId, template, store);
  return parsed.data.map((template) => `${template.id} ${template.displayName} (${template.status}, ${template.versions.length} version(s))`);
}

/** Reads the workspace's templates from its WhatsApp Business Account and upserts them. */
export async function syncWorkspaceTemplates(store: Store, workspaceId: string, deps: Omit<TemplateSyncDependencies, 'store'>): Promise<TemplateSyncSummary> {
  try {
    return await syncTemplates(workspaceId, { ...deps, store });
  } catch (error) {
    if (error instanceof TemplateSyncError) throw new UsageError(`${error.message} (set it with \`workspace create --whatsapp-business-account-id\`)`);
    throw error;
  }
}

async function requireWorkspace(store: Store, workspaceId: string): Promise<void> {
  if (!(await getWorkspace(workspaceId, store))) throw new UsageError(`No workspace ${workspaceId}: create it first with \`workspace create\``);
}
