import { GetCommand } from '@aws-sdk/lib-dynamodb';
import * as z from 'zod';
import { queryAll } from '../../shared/query-all';
import type { Store } from '../../shared/store';
import { parseItem } from '../../shared/stored-item';
import { accessPatterns, indexKeys, keys } from '../../shared/table';

/**
 * The workspace business account item: which workspace owns a WhatsApp Business Account. Template
 * webhooks name the account (entry.id); this says whose templates they are.
 */
export const workspaceBusinessAccountPut = (businessAccountId: string, workspaceId: string) => ({
  Put: {
    Item: { ...keys.whatsappBusinessAccount(businessAccountId), ...indexKeys.businessAccount(businessAccountId), entity: 'whatsappBusinessAccount', businessAccountId, workspaceId },
  },
});

const ownerSchema = z.object({ workspaceId: z.string() });

/** The workspace that owns `businessAccountId`, if one does. */
export async function workspaceOfBusinessAccount(businessAccountId: string, store: Store): Promise<string | undefined> {
  const { Item } = await store.db.send(new GetCommand({ TableName: store.tableName, Key: keys.whatsappBusinessAccount(businessAccountId) }));
  return Item ? parseItem(ownerSchema, Item, 'workspace business account').workspaceId : undefined;
}

/** The workspaces that name a WhatsApp Business Account, each once. */
export async function workspacesWithBusinessAccounts(store: Store): Promise<string[]> {
  const items = await queryAll(store, accessPatterns.businessAccounts());
  return [...new Set(items.map((item) => parseItem(ownerSchema, item, 'workspace business account').workspaceId))];
}
