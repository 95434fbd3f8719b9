import { paginateQuery } from '@aws-sdk/lib-dynamodb';
import * as z from '../../shared/zod';
import { batchGet } from '../../shared/batch-get';
import { defaultStore } from '../../shared/default-store';
import { ValidationError } from '../../shared/errors';
import type { Store } from '../../shared/store';
import { parseItem } from '../../shared/stored-item';
import { accessPatterns, keys } from '../../shared/table';
import { conversationIdFor } from '../conversations/conversation-id';
import { toE164 } from '../phones/phone-number';
import { instant } from '../time/instant';
import { wibRange } from '../time/wib';

/** The body of GET /v1/messages/send-check (docs/api.md#send-check). */
export const sendCheckSchema = z.object({
  sent: z.boolean(),
  dispatchId: z.nullable(z.guid()),
  submittedAt: z.nullable(instant()),
});
export type SendCheck = z.output<typeof sendCheckSchema>;

const sentMessageSchema = z.object({ dispatchId: z.string() });
const checkedDispatchSchema = z.object({ dispatchId: z.string(), createdAt: z.string(), status: z.string() });

/** Statuses that mean the template did not go out. */
const wentOut = (status: string) => status !== 'failed' && status !== 'canceled';
/** Messages read per page of the conversation: the template's are picked by a filter, the rest passed over. */
const PAGE_SIZE = 100;

/**
 * Whether the workspace sent `templateId` to `phone` (docs/api.md#send-check): the newest dispatch that is
 * not failed or canceled, over the whole history or one WIB day. Every send has written its message
 * into the number's conversation, with its dispatch and template ids, in the send's own transaction
 * since the first release, so the conversation answers for the whole history with no index of its
 * own (decision 115): its messages are read newest first, the template's picked by a filter, and
 * their dispatches' statuses read from the table, newest first, until one counts.
 */
export async function checkSend(workspaceId: string, query: { phone: string; templateId: string; date?: string }, store: Store = defaultStore()): Promise<SendCheck> {
  const phone = toE164(query.phone);
  if (!phone) throw new ValidationError(`query.phone: "${query.phone}" is not a valid phone number`);
  const range = query.date ? wibRange(query.date, query.date) : undefined;
  const where = accessPatterns.messagesOfConversation(workspaceId, conversationIdFor(workspaceId, 'whatsapp', phone), range);
  const pages = paginateQuery(
    { client: store.db, pageSize: PAGE_SIZE },
    {
      TableName: store.tableName,
      ...where,
      FilterExpression: '#templateId = :templateId',
      ProjectionExpression: '#dispatchId',
      ExpressionAttributeNames: { ...where.ExpressionAttributeNames, '#templateId': 'templateId', '#dispatchId': 'dispatchId' },
      ExpressionAttributeValues: { ...where.ExpressionAttributeValues, ':templateId': query.templateId },
      ScanIndexForward: false,
    },
  );
  for await (const page of pages) {
    const dispatchKeys = (page.Items ?? []).map((item) => keys.dispatch(parseItem(sentMessageSchema, item, 'conversation message').dispatchId));
    // Usually the newest of the template counts: read it alone, and the rest of the page only if it does not.
    for (const batch of [dispatchKeys.slice(0, 1), dispatchKeys.slice(1)]) {
      const dispatches = (await batchGet(store, batch)).map((item) => parseItem(checkedDispatchSchema, item, 'dispatch'));
      const counted = dispatches.find((dispatch) => wentOut(dispatch.status));
      if (counted) return { sent: true, dispatchId: counted.dispatchId, submittedAt: counted.createdAt };
    }
  }
  return { sent: false, dispatchId: null, submittedAt: null };
}
