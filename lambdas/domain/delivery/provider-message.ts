import { GetCommand } from '@aws-sdk/lib-dynamodb';
import * as z from '../../shared/zod';
import type { Store } from '../../shared/store';
import { parseItem } from '../../shared/stored-item';
import { keys } from '../../shared/table';
import type { Write } from '../../shared/writes';
import { WAMID_MADE } from '../messages/dispatch';

/**
 * The provider message item: what a WhatsApp message id (wamid) names. Every status Meta sends
 * carries the wamid, and a reaction names the wamid it reacts to, so this is how both find their
 * message: one of our dispatches (put by the table's stream consumer from the move that first
 * recorded the wamid on the dispatch, the provider's answer or a status that echoed the dispatch
 * id when that answer was lost: decision 114), or a customer's message in its conversation
 * (written with it).
 */

const storedSchema = z.discriminatedUnion('kind', [
  z.object({ kind: z.literal('dispatch'), workspaceId: z.string(), dispatchId: z.string() }),
  z.object({ kind: z.literal('customerMessage'), workspaceId: z.string(), conversationId: z.string(), createdAt: z.string() }),
]);
export type ProviderMessageRef = z.output<typeof storedSchema>;

/** The item: written once per wamid; a repeat writes the same item. */
const providerMessageItem = (wamid: string, ref: ProviderMessageRef) => ({ ...keys.providerMessage(wamid), entity: 'providerMessage', wamid, ...ref });

export const providerMessagePut = (wamid: string, ref: ProviderMessageRef): Write => ({ Put: { Item: providerMessageItem(wamid, ref) } });

/** What `wamid` names, if we know it. */
export async function findProviderMessage(wamid: string, store: Store): Promise<ProviderMessageRef | undefined> {
  const { Item } = await store.db.send(new GetCommand({ TableName: store.tableName, Key: keys.providerMessage(wamid) }));
  return Item ? parseItem(storedSchema, Item, 'provider message') : undefined;
}

const changeSchema = z.object({ dispatchId: z.string().check(z.minLength(1)), workspaceId: z.string().check(z.minLength(1)), providerMessageId: z.string().check(z.minLength(1)) });

/**
 * The wamid's item a dispatch change made, from its stream record's new image (unmarshalled):
 * the move that first recorded the wamid names it (`WAMID_MADE`); other changes make none.
 */
export function providerMessageOfChange(newImage: Record<string, unknown>): Record<string, unknown>[] {
  if (newImage[WAMID_MADE] !== true) return [];
  const change = parseItem(changeSchema, newImage, 'dispatch');
  return [providerMessageItem(change.providerMessageId, { kind: 'dispatch', workspaceId: change.workspaceId, dispatchId: change.dispatchId })];
}
