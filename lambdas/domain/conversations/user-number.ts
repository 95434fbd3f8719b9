import { GetCommand } from '@aws-sdk/lib-dynamodb';
import * as z from '../../shared/zod';
import type { Store } from '../../shared/store';
import { parseItem } from '../../shared/stored-item';
import { keys } from '../../shared/table';
import type { Write } from '../../shared/writes';

/**
 * The user-number item: the number WhatsApp gave with a customer's business-scoped user id
 * (BSUID), in a workspace. A customer who hides their number behind a username keeps their BSUID,
 * and their messages then name it alone; this is how those find the conversation of the number
 * (decision 222). Written with each message that carries both, and with WhatsApp's notice of a
 * new BSUID (decision 226: a number change's, for the new number; a BSUID change's, for the
 * customer's number); never removed: WhatsApp gives a customer who changes number a new BSUID, so
 * a BSUID names one number for good.
 */
const storedSchema = z.object({ phone: z.string() });

/** The item's put, for the message's transaction: a repeat puts the same item. */
export const userNumberPut = (workspaceId: string, userId: string, phone: string): Write => ({
  Put: { Item: { ...keys.userNumber(workspaceId, userId), entity: 'userNumber', workspaceId, userId, phone } },
});

/**
 * The number (E.164) a message named with the BSUID, if one did. Read consistently: the message
 * with both may have been stored a moment before, in another POST.
 */
export async function findUserNumber(workspaceId: string, userId: string, store: Store): Promise<string | undefined> {
  const { Item } = await store.db.send(new GetCommand({ TableName: store.tableName, Key: keys.userNumber(workspaceId, userId), ConsistentRead: true }));
  return Item ? parseItem(storedSchema, Item, 'user number').phone : undefined;
}
