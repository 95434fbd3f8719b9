import { GetCommand } from '@aws-sdk/lib-dynamodb';
import * as z from '../../shared/zod';
import type { Store } from '../../shared/store';
import { parseItem } from '../../shared/stored-item';
import { keys } from '../../shared/table';
import { writeOne, type Write } from '../../shared/writes';
import { WAMID_MADE } from '../messages/dispatch';

/**
 * The provider message item: what a WhatsApp message id (wamid) names. Every status Meta sends
 * carries the wamid, and a reaction names the wamid it reacts to, so this is how both find their
 * message: one of our dispatches, or a customer's message in its conversation (written with it).
 * A dispatch's item is put by the deliver consumer from the provider's answer, before its sent move
 * (decision 196), or, when that answer was lost and a status that echoed the dispatch id first told
 * the wamid, by the table's stream consumer from that status's move (decision 114).
 */

const storedSchema = z.discriminatedUnion('kind', [
  z.object({ kind: z.literal('dispatch'), workspaceId: z.string(), dispatchId: z.string() }),
  // `createdAt`: the time the message is keyed at in its conversation (its `placedAt`, decision
  // 204; WhatsApp's own time for one stored before, whose key holds that), not the time it shows.
  z.object({ kind: z.literal('customerMessage'), workspaceId: z.string(), conversationId: z.string(), createdAt: z.string() }),
]);
export type ProviderMessageRef = z.output<typeof storedSchema>;

/** The item: written once per wamid; a repeat writes the same item. */
const providerMessageItem = (wamid: string, ref: ProviderMessageRef) => ({ ...keys.providerMessage(wamid), entity: 'providerMessage', wamid, ...ref });

/**
 * The item's put. A customer's message's is written with its message and refused where it already
 * names that conversation: a repeated webhook is refused on it as on the message, even where the
 * message was stored at another time in its key (decision 204). `storedIn` names another
 * conversation the same message may have been stored in first (a BSUID-only message's own, before
 * a later message gave the customer's number: decision 222), refused alike.
 */
export const providerMessagePut = (wamid: string, ref: ProviderMessageRef, storedIn?: string): Write => {
  if (ref.kind !== 'customerMessage') return { Put: { Item: providerMessageItem(wamid, ref) } };
  const values = { ':conversationId': ref.conversationId, ...(storedIn ? { ':storedIn': storedIn } : {}) };
  const condition = `attribute_not_exists(pk) OR (conversationId <> :conversationId${storedIn ? ' AND conversationId <> :storedIn' : ''})`;
  return { Put: { Item: providerMessageItem(wamid, ref), ConditionExpression: condition, ExpressionAttributeValues: values } };
};

/** Puts the item of a wamid the provider answered our send with: a repeat puts the same item. */
export async function putDispatchWamid(wamid: string, dispatch: { workspaceId: string; dispatchId: string }, store: Store): Promise<void> {
  await writeOne(store, providerMessagePut(wamid, { kind: 'dispatch', workspaceId: dispatch.workspaceId, dispatchId: dispatch.dispatchId }));
}

/** What `wamid` names, if we know it. */
export async function findProviderMessage(wamid: string, store: Store): Promise<ProviderMessageRef | undefined> {
  const { Item } = await store.db.send(new GetCommand({ TableName: store.tableName, Key: keys.providerMessage(wamid) }));
  return Item ? parseItem(storedSchema, Item, 'provider message') : undefined;
}

const changeSchema = z.object({ dispatchId: z.string().check(z.minLength(1)), workspaceId: z.string().check(z.minLength(1)), providerMessageId: z.string().check(z.minLength(1)) });

/**
 * The wamid's item a dispatch change made, from its stream record's new image (unmarshalled):
 * a status move that first recorded the wamid names it (`WAMID_MADE`); other changes make none,
 * nor does the sent move, whose consumer put the item before it (decision 196).
 */
export function providerMessageOfChange(newImage: Record<string, unknown>): Record<string, unknown>[] {
  if (newImage[WAMID_MADE] !== true) return [];
  const change = parseItem(changeSchema, newImage, 'dispatch');
  return [providerMessageItem(change.providerMessageId, { kind: 'dispatch', workspaceId: change.workspaceId, dispatchId: change.dispatchId })];
}
