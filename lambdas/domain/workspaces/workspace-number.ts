import { GetCommand } from '@aws-sdk/lib-dynamodb';
import * as z from 'zod';
import type { Store } from '../../shared/store';
import { parseItem } from '../../shared/stored-item';
import { keys } from '../../shared/table';
import type { Workspace } from './workspace';

/**
 * The workspace number item: which workspace owns a WhatsApp business phone number. Inbound
 * messages name the business number; this says whose it is.
 */
export const workspaceNumberPut = (phoneNumberId: string, workspaceId: string) => ({
  Put: { Item: { ...keys.whatsappNumber(phoneNumberId), entity: 'whatsappNumber', workspaceId } },
});

/** The workspace that owns `phoneNumberId`, if one does. */
export async function workspaceOfNumber(phoneNumberId: string, store: Store): Promise<string | undefined> {
  const { Item } = await store.db.send(new GetCommand({ TableName: store.tableName, Key: keys.whatsappNumber(phoneNumberId) }));
  return Item ? parseItem(z.object({ workspaceId: z.string() }), Item, 'workspace number').workspaceId : undefined;
}

/**
 * The business number a workspace sends from, as webhooks name it (`metadata.phone_number_id`):
 * its own, or, for a sandbox workspace without one, a number id of its own that no real number can
 * have (real ids are digits, configured ones match /^[A-Za-z0-9_-]+$/), registered with the
 * workspace like a real one. So the sandbox reports as the workspace's number, and statuses apply
 * only to the workspace that owns the number they came to, in the sandbox as on WhatsApp. A
 * WhatsApp workspace without a number sends from the stack's default one, which no workspace owns.
 */
export function sendingNumberOf(workspace: Pick<Workspace, 'id' | 'settings'>): string | undefined {
  if (workspace.settings.whatsappPhoneNumberId) return workspace.settings.whatsappPhoneNumberId;
  return workspace.settings.provider === 'sandbox' ? `sandbox:${workspace.id}` : undefined;
}
