import { QueryCommand } from '@aws-sdk/lib-dynamodb';
import * as z from '../../shared/zod';
import type { Store } from '../../shared/store';
import { parseItem } from '../../shared/stored-item';
import { accessPatterns, keys } from '../../shared/table';
import type { Write } from '../../shared/writes';

/**
 * The number-move item: a customer's number changed (WhatsApp's `user_changed_number` notice), from
 * one number to another at the notice's time, in a workspace. It lets the customer's word on the old
 * number that Meta delivers after the notice (its retries, out of order) follow them as the notice's
 * carry did (decision 226). Kept for good, as the resume mark is: a signed POST can be replayed any
 * day. A number may change hands and move again: each move is its own item, by time.
 */
const storedSchema = z.object({ to: z.string(), movedAt: z.string() });

export type NumberMove = z.output<typeof storedSchema>;

/** The item's put, for the notice's transaction: a repeat puts the same item. Numbers are E.164. */
export const numberMovePut = (workspaceId: string, from: string, to: string, movedAt: string): Write => ({
  Put: { Item: { ...keys.numberMove(workspaceId, from, movedAt), entity: 'numberMove', workspaceId, from, to, movedAt } },
});

/**
 * The first move of the number (E.164) at or after `since`: where whoever held it then went. Read
 * consistently: the notice may have been stored a moment before, in another POST.
 */
export async function nextNumberMove(workspaceId: string, phone: string, since: string, store: Store): Promise<NumberMove | undefined> {
  const { Items = [] } = await store.db.send(new QueryCommand({ TableName: store.tableName, ...accessPatterns.movesOfNumber(workspaceId, phone, since), Limit: 1, ConsistentRead: true }));
  return Items[0] && parseItem(storedSchema, Items[0], 'number move');
}
