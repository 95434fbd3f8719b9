import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { defaultStore } from '../../shared/default-store';
import type { Store } from '../../shared/store';
import { parseItem } from '../../shared/stored-item';
import { keys } from '../../shared/table';
import { messageStatusSchema, type DispatchStatusFields } from './dispatch';
import { storedDispatchFields } from './dispatch-repository';

/**
 * A dispatch as GET /v1/messages/{dispatchId} reads it: the status body's fields and the owning
 * workspace, asked for by name. The rest of the item (the send's parameters, its cost, the delivery
 * attempt) is neither unmarshalled nor parsed, which was most of the read's parsing (decision 108).
 * Kept out of dispatch-repository.ts: these module-level values would sit in every bundle importing it.
 */
const fields = [...(Object.keys(messageStatusSchema.shape) as (keyof DispatchStatusFields)[]), 'workspaceId' as const];
const statusItemSchema = storedDispatchFields(fields);
// Several of the names (status, to, channel…) are DynamoDB reserved words.
const projection = {
  ProjectionExpression: fields.map((_, i) => `#f${i}`).join(', '),
  ExpressionAttributeNames: Object.fromEntries(fields.map((field, i) => [`#f${i}`, field])),
};

/** A workspace's dispatch, its status fields only; another workspace's id reads as missing. */
export async function getDispatchStatus(workspaceId: string, dispatchId: string, store: Store = defaultStore()): Promise<DispatchStatusFields | undefined> {
  const { Item } = await store.db.send(new GetCommand({ TableName: store.tableName, Key: keys.dispatch(dispatchId), ...projection }));
  const dispatch = Item ? parseItem(statusItemSchema, Item, 'dispatch') : undefined;
  return dispatch?.workspaceId === workspaceId ? dispatch : undefined;
}
