import { TtlCache } from '../../shared/ttl-cache';
import type { Store } from '../../shared/store';
import type { Workspace } from './workspace';
import { getWorkspace } from './workspace-repository';

/** Settings and rates change rarely; a container re-reads them at most once a minute. */
export const WORKSPACE_CACHE_TTL_MS = 60_000;
const cache = new TtlCache<Workspace | undefined>(1_000);

export async function lookUpWorkspace(workspaceId: string, now: Date, store?: Store): Promise<Workspace> {
  const workspace = await cache.getOrLoad(workspaceId, now.getTime(), () => getWorkspace(workspaceId, store), (found) => (found ? WORKSPACE_CACHE_TTL_MS : 0));
  // A key exists only for an existing workspace; its absence is a data fault, not a client error.
  if (!workspace) throw new Error(`Workspace ${workspaceId} of an authenticated key does not exist`);
  return workspace;
}

export const clearWorkspaceCache = () => cache.clear();
