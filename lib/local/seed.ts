import { saveApiKey } from '../../lambdas/domain/api-keys/api-key-repository';
import { saveTemplate } from '../../lambdas/domain/templates/template-repository';
import { saveWorkspace } from '../../lambdas/domain/workspaces/workspace-repository';
import type { Store } from '../../lambdas/shared/store';
import type { Seed } from './seed-file';

/** Writes the seed through the same domain functions the admin CLI uses. Safe to apply twice. */
export async function applySeed(seed: Seed, store: Store, now = new Date()): Promise<void> {
  for (const { apiKeys, templates, ...workspace } of seed.workspaces) {
    await saveWorkspace(workspace, now, store);
    for (const { key, ...input } of apiKeys) await saveApiKey(key, { workspaceId: workspace.id, ...input }, now, store);
    for (const template of templates) await saveTemplate(workspace.id, template, store);
  }
}
