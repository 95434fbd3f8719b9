import { getWorkspace } from '../../../lambdas/domain/workspaces/workspace-repository';
import type { Store } from '../../../lambdas/shared/store';
import { AdminError } from '../command';

/** Refuses a command for a workspace that does not exist, saying how to create it. */
export async function requireWorkspace(store: Store, workspaceId: string): Promise<void> {
  if (!(await getWorkspace(workspaceId, store))) throw new AdminError('workspace_missing', `No workspace ${workspaceId}: create it first with \`workspace create\``, 2);
}
