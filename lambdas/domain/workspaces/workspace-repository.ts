import { GetCommand, PutCommand } from '@aws-sdk/lib-dynamodb';
import * as z from 'zod';
import { keys } from '../../shared/table';
import { defaultStore } from '../../shared/default-store';
import type { Store } from '../../shared/store';
import { parseItem } from '../../shared/stored-item';
import { workspaceInputSchema, type Workspace, type WorkspaceInput } from './workspace';
import { workspaceBusinessAccountPut } from './workspace-business-account';
import { workspaceNumberPut } from './workspace-number';

/** The workspace item: its key, its write (with its business number's and account's) and its reading back. */
const storedWorkspaceSchema = workspaceInputSchema.extend({ createdAt: z.string(), updatedAt: z.string() });

export async function getWorkspace(workspaceId: string, store: Store = defaultStore()): Promise<Workspace | undefined> {
  const { Item } = await store.db.send(new GetCommand({ TableName: store.tableName, Key: keys.workspace(workspaceId) }));
  if (!Item) return undefined;
  return parseItem(storedWorkspaceSchema, Item, 'workspace');
}

/** Creates the workspace or updates its name, rate and settings; `createdAt` is kept. */
export async function saveWorkspace(input: WorkspaceInput, now: Date, store: Store = defaultStore()): Promise<Workspace> {
  const parsed = workspaceInputSchema.parse(input);
  const existing = await getWorkspace(parsed.id, store);
  const workspace: Workspace = { ...parsed, createdAt: existing?.createdAt ?? now.toISOString(), updatedAt: now.toISOString() };
  await store.db.send(new PutCommand({ TableName: store.tableName, Item: { ...keys.workspace(parsed.id), entity: 'workspace', ...workspace } }));
  const phoneNumberId = parsed.settings.whatsappPhoneNumberId;
  if (phoneNumberId) {
    await store.db.send(new PutCommand({ TableName: store.tableName, ...workspaceNumberPut(phoneNumberId, parsed.id).Put }));
  }
  const businessAccountId = parsed.settings.whatsappBusinessAccountId;
  if (businessAccountId) {
    await store.db.send(new PutCommand({ TableName: store.tableName, ...workspaceBusinessAccountPut(businessAccountId, parsed.id).Put }));
  }
  return workspace;
}
