import { GetCommand } from '@aws-sdk/lib-dynamodb';
import * as z from 'zod';
import type { Store } from '../../shared/store';
import { parseItem } from '../../shared/stored-item';
import { keys } from '../../shared/table';

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
