import { GetCommand } from '@aws-sdk/lib-dynamodb';
import * as z from '../../shared/zod';
import type { Store } from '../../shared/store';
import { parseItem } from '../../shared/stored-item';
import { queryAll } from '../../shared/query-all';
import { accessPatterns, indexKeys, keys, type Entity, type ItemKey } from '../../shared/table';
import type { Write } from '../../shared/writes';
import type { BindingSetting, WorkspaceSettings } from './workspace';

/**
 * The binding items: which workspace owns a WhatsApp business phone number (`WANUM#<id>`, for
 * inbound messages and statuses) and a WhatsApp Business Account (`WABA#<id>`, for its templates).
 * Each identifier belongs to at most one workspace: a claim is refused while another holds it, and
 * is written in the same transaction as the workspace setting that names it.
 */
const bindingItems: Record<BindingSetting, { key: (id: string) => ItemKey; entity: Entity; indexed?: (id: string) => Record<string, string> }> = {
  whatsappPhoneNumberId: { key: keys.whatsappNumber, entity: 'whatsappNumber' },
  // Listed in one index partition: the scheduled template sync finds every account without a Scan.
  whatsappBusinessAccountId: { key: keys.whatsappBusinessAccount, entity: 'whatsappBusinessAccount', indexed: (id) => ({ ...indexKeys.businessAccount(id), businessAccountId: id }) },
};

/** The stored item that binds `id` to the workspace (also the testing kit's, lib/testing/send-items.ts). */
export const bindingItem = (setting: BindingSetting, id: string, workspaceId: string) => ({
  ...bindingItems[setting].key(id),
  ...bindingItems[setting].indexed?.(id),
  entity: bindingItems[setting].entity,
  workspaceId,
});

/** Claims `id` for the workspace; refused (ConditionalCheckFailed) while another workspace holds it. */
export const bindingClaim = (setting: BindingSetting, id: string, workspaceId: string): Write => ({
  Put: {
    Item: bindingItem(setting, id, workspaceId),
    ConditionExpression: 'attribute_not_exists(pk) OR workspaceId = :ws',
    ExpressionAttributeValues: { ':ws': workspaceId },
  },
});

/** Gives `id` back; never another workspace's claim. */
export const bindingRelease = (setting: BindingSetting, id: string, workspaceId: string): Write => ({
  Delete: { Key: bindingItems[setting].key(id), ConditionExpression: 'attribute_not_exists(pk) OR workspaceId = :ws', ExpressionAttributeValues: { ':ws': workspaceId } },
});

/** What changing a workspace's bindings from `before` to `after` writes: claims of new identifiers, releases of old ones. */
export function bindingChanges(workspaceId: string, before: Partial<WorkspaceSettings>, after: Partial<WorkspaceSettings>, settings: readonly BindingSetting[]): { claims: Write[]; releases: Write[] } {
  const claims: Write[] = [];
  const releases: Write[] = [];
  for (const setting of settings) {
    const [old, next] = [before[setting], after[setting]];
    if (next && next !== old) claims.push(bindingClaim(setting, next, workspaceId));
    if (old && old !== next) releases.push(bindingRelease(setting, old, workspaceId));
  }
  return { claims, releases };
}

/** The workspace `id` is bound to, if any. */
export async function workspaceBoundTo(setting: BindingSetting, id: string, store: Store): Promise<string | undefined> {
  const { Item } = await store.db.send(new GetCommand({ TableName: store.tableName, Key: bindingItems[setting].key(id) }));
  return Item ? parseItem(z.object({ workspaceId: z.string() }), Item, bindingItems[setting].entity).workspaceId : undefined;
}

/** The workspace that owns a WhatsApp Business Account, if one does. */
export const workspaceOfBusinessAccount = (businessAccountId: string, store: Store) => workspaceBoundTo('whatsappBusinessAccountId', businessAccountId, store);

/** The workspaces that name a WhatsApp Business Account, each once (the scheduled template sync's list). */
export async function workspacesWithBusinessAccounts(store: Store): Promise<string[]> {
  const items = await queryAll(store, accessPatterns.businessAccounts());
  return [...new Set(items.map((item) => parseItem(z.object({ workspaceId: z.string() }), item, 'whatsappBusinessAccount').workspaceId))];
}
