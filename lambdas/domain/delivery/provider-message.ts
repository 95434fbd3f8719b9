import { GetCommand } from '@aws-sdk/lib-dynamodb';
import * as z from '../../shared/zod';
import type { Store } from '../../shared/store';
import { parseItem } from '../../shared/stored-item';
import { keys } from '../../shared/table';
import type { Write } from '../../shared/writes';

/**
 * The provider message item: what a WhatsApp message id (wamid) names. Every status Meta sends
 * carries the wamid, and a reaction names the wamid it reacts to, so this is how both find their
 * message: one of our dispatches (written with the provider's answer, or learned from a status
 * that echoed the dispatch id when that answer was lost), or a customer's message in its
 * conversation (written with it).
 */

const storedSchema = z.discriminatedUnion('kind', [
  z.object({ kind: z.literal('dispatch'), workspaceId: z.string(), dispatchId: z.string() }),
  z.object({ kind: z.literal('customerMessage'), workspaceId: z.string(), conversationId: z.string(), createdAt: z.string() }),
]);
export type ProviderMessageRef = z.output<typeof storedSchema>;

/** Written once per wamid; a repeat writes the same item. */
export const providerMessagePut = (wamid: string, ref: ProviderMessageRef): Write => ({
  Put: { Item: { ...keys.providerMessage(wamid), entity: 'providerMessage', wamid, ...ref } },
});

/** What `wamid` names, if we know it. */
export async function findProviderMessage(wamid: string, store: Store): Promise<ProviderMessageRef | undefined> {
  const { Item } = await store.db.send(new GetCommand({ TableName: store.tableName, Key: keys.providerMessage(wamid) }));
  return Item ? parseItem(storedSchema, Item, 'provider message') : undefined;
}
