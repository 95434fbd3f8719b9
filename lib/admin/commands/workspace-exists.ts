import type { Workspace } from '../../../lambdas/domain/workspaces/workspace';
import { getWorkspace } from '../../../lambdas/domain/workspaces/workspace-repository';
import type { Store } from '../../../lambdas/shared/store';
import { AdminError } from '../command';

/**
 * Refuses a command for a workspace that does not exist, saying how to create it. An id that names
 * no workspace is a mistake in how the command was called (exit 2, as `workspace update` answers
 * one), and nothing is written.
 */
export async function requireWorkspace(store: Store, workspaceId: string): Promise<Workspace> {
  const workspace = await getWorkspace(workspaceId, store);
  if (!workspace) throw new AdminError('workspace_missing', `No workspace ${workspaceId}: create it first with \`workspace create\``, 2);
  return workspace;
}
