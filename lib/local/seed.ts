import { saveApiKey } from '../../lambdas/domain/api-keys/api-key-repository';
import { getTemplate, saveTemplate } from '../../lambdas/domain/templates/template-repository';
import { getWorkspace, saveWorkspace } from '../../lambdas/domain/workspaces/workspace-repository';
import type { Store } from '../../lambdas/shared/store';
import type { Seed } from './seed-file';

/**
 * Writes what the seed declares and the table lacks, through the same domain functions the admin
 * CLI uses: a workspace, key or template already there is left as it is, so a restart that keeps
 * its data (MESSAGING_DATA_DIR) keeps what the operator changed since (a rate, a bound number, a
 * revoked key, an imported template). Safe to apply twice.
 */
export async function applySeed(seed: Seed, store: Store, now = new Date()): Promise<void> {
  for (const { apiKeys, templates, ...workspace } of seed.workspaces) {
    if (!(await getWorkspace(workspace.id, store))) await saveWorkspace(workspace, now, store);
    // A stored key is found by its hash and kept as it is, revoked or not.
    for (const { key, ...input } of apiKeys) await saveApiKey(key, { workspaceId: workspace.id, ...input }, now, store);
    for (const template of templates) if (!(await getTemplate(workspace.id, template.id, store))) await saveTemplate(workspace.id, template, store);
  }
}
