import type { Store } from '../../shared/store';
import { lookUpWorkspace } from '../workspaces/workspace-lookup';
import { identify, type Principal } from './authenticate';

export interface UsageIdentity {
  principal: Principal;
  /** The API Gateway API key value a usage plan counts this request by. */
  usageKey: string;
  /** True when the workspace has no key of its own and shares the stack's fallback key. */
  shared: boolean;
}

export interface UsageIdentityOptions {
  /** The stack's key for workspaces without their own, in the default usage plan. */
  fallbackKey: string | undefined;
  now?: Date;
  store?: Store;
}

/**
 * Which usage key an `X-API-Key` value's requests count against: its workspace's own gateway usage
 * key, or the stack's fallback key while the workspace has none. Refuses (UnauthorizedError) exactly
 * the keys every route refuses with 401; the scope is left to the route, which answers 403 itself.
 */
export async function usageIdentityOf(rawKey: string | undefined, options: UsageIdentityOptions): Promise<UsageIdentity> {
  const now = options.now ?? new Date();
  const principal = await identify(rawKey, { now, ...(options.store ? { store: options.store } : {}) });
  const workspace = await lookUpWorkspace(principal.workspaceId, now, options.store);
  if (workspace.gatewayUsageKey) return { principal, usageKey: workspace.gatewayUsageKey.value, shared: false };
  // A stack deployed with usage plans always sets it; its absence is a wiring fault, not the client's.
  if (!options.fallbackKey) throw new Error(`Workspace ${workspace.id} has no gateway usage key and FALLBACK_USAGE_KEY (the stack’s fallback key) is not set`);
  return { principal, usageKey: options.fallbackKey, shared: true };
}
