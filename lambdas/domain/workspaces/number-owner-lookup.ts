import type { Store } from '../../shared/store';
import { TtlCache } from '../../shared/ttl-cache';
import { workspaceOfNumber } from './workspace-number';

/**
 * A number changes hands only when an operator rebinds it, and WhatsApp reports on a message three
 * times: a container trusts the owner it read for a minute, for statuses (decision 122). A number
 * nobody owns is not kept, so a number bound since is seen at once.
 */
export const NUMBER_OWNER_CACHE_TTL_MS = 60_000;
const cache = new TtlCache<string | undefined>(1_000);
const ttl = (owner: string | undefined) => (owner ? NUMBER_OWNER_CACHE_TTL_MS : 0);

/** The workspace that owned the number when this container last read it, at most a minute ago. */
export const lookUpNumberOwner = (phoneNumberId: string, now: Date, store: Store): Promise<string | undefined> =>
  cache.getOrLoad(phoneNumberId, now.getTime(), () => workspaceOfNumber(phoneNumberId, store), ttl);

/** The workspace that owns the number now, read from the table; what the container keeps follows it. */
export async function currentNumberOwner(phoneNumberId: string, now: Date, store: Store): Promise<string | undefined> {
  const owner = await workspaceOfNumber(phoneNumberId, store);
  cache.set(phoneNumberId, owner, ttl(owner), now.getTime());
  return owner;
}

export const clearNumberOwnerCache = () => cache.clear();
