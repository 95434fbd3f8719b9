import { GetCommand, PutCommand } from '@aws-sdk/lib-dynamodb';
import { keys } from '../../shared/table';
import { defaultStore } from '../../shared/default-store';
import type { Store } from '../../shared/store';
import { workspaceInputSchema, type Workspace, type WorkspaceInput } from './workspace';

export async function getWorkspace(workspaceId: string, store: Store = defaultStore()): Promise<Workspace | undefined> {
  const { Item } = await store.db.send(new GetCommand({ TableName: store.tableName, Key: keys.workspace(workspaceId) }));
  if (!Item) return undefined;
  const { id, name, rupiahPerCredit, settings, createdAt, updatedAt } = Item as Workspace;
  return { id, name, rupiahPerCredit, settings, createdAt, updatedAt };
}

/** Creates the workspace or updates its name, rate and settings; `createdAt` is kept. */
export async function saveWorkspace(input: WorkspaceInput, now: Date, store: Store = defaultStore()): Promise<Workspace> {
  const parsed = workspaceInputSchema.parse(input);
  const existing = await getWorkspace(parsed.id, store);
  const workspace: Workspace = { ...parsed, createdAt: existing?.createdAt ?? now.toISOString(), updatedAt: now.toISOString() };
  await store.db.send(new PutCommand({ TableName: store.tableName, Item: { ...keys.workspace(parsed.id), entity: 'workspace', ...workspace } }));
  const phoneNumberId = parsed.settings.whatsappPhoneNumberId;
  if (phoneNumberId) {
    // Inbound messages name the business number; this says whose it is.
    await store.db.send(new PutCommand({ TableName: store.tableName, Item: { ...keys.whatsappNumber(phoneNumberId), entity: 'whatsappNumber', workspaceId: parsed.id } }));
  }
  return workspace;
}
