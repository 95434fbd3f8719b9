import { paginateQuery } from '@aws-sdk/lib-dynamodb';
import * as z from '../../shared/zod';
import { batchGet } from '../../shared/batch-get';
import { defaultStore } from '../../shared/default-store';
import { ValidationError } from '../../shared/errors';
import type { Store } from '../../shared/store';
import { parseItem } from '../../shared/stored-item';
import { accessPatterns, dispatchToPhoneEntry } from '../../shared/table';
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

const sentDispatchSchema = z.object({ dispatchId: z.string(), createdAt: z.string() });
const checkedDispatchSchema = z.object({ dispatchId: z.string(), createdAt: z.string(), status: z.string() });
type Sent = z.output<typeof sentDispatchSchema>;

/** Statuses that mean the template did not go out. */
const wentOut = (status: string) => status !== 'failed' && status !== 'canceled';
/** Keys read per page of the number index: a number's dispatches of other templates are passed over by key. */
const PAGE_SIZE = 100;

/**
 * Whether the workspace sent `templateId` to `phone` (docs/api.md#send-check): the newest dispatch that is
 * not failed or canceled, over the whole history or one WIB day. The number index holds only keys
 * (decision 100): a page of the number's dispatches is read newest first, those of the template are
 * picked by their sort key, and their statuses read from the table, newest first, until one counts.
 * Dispatches written before that index kept their send-check entry on gsi1, read alongside.
 */
export async function checkSend(workspaceId: string, query: { phone: string; templateId: string; date?: string }, store: Store = defaultStore()): Promise<SendCheck> {
  const phone = toE164(query.phone);
  if (!phone) throw new ValidationError(`query.phone: "${query.phone}" is not a valid phone number`);
  const range = query.date ? wibRange(query.date, query.date) : undefined;
  const found = await Promise.all([newestOnNumberIndex(workspaceId, phone, query.templateId, range, store), newestWrittenBefore(workspaceId, phone, query.templateId, range, store)]);
  const newest = found.filter((sent): sent is Sent => sent !== undefined).sort((a, b) => b.createdAt.localeCompare(a.createdAt))[0];
  return newest ? { sent: true, dispatchId: newest.dispatchId, submittedAt: newest.createdAt } : { sent: false, dispatchId: null, submittedAt: null };
}

async function newestOnNumberIndex(workspaceId: string, phone: string, templateId: string, range: { start: string; end: string } | undefined, store: Store): Promise<Sent | undefined> {
  const where = accessPatterns.dispatchesToPhone(workspaceId, phone, range);
  const pages = paginateQuery({ client: store.db, pageSize: PAGE_SIZE }, { TableName: store.tableName, ...where, ScanIndexForward: false });
  for await (const page of pages) {
    const keysOfTemplate = (page.Items ?? [])
      .map(dispatchToPhoneEntry)
      .filter((entry) => entry.templateId === templateId)
      .map((entry) => entry.key);
    // Usually the newest of the template counts: read it alone, and the rest of the page only if it does not.
    for (const batch of [keysOfTemplate.slice(0, 1), keysOfTemplate.slice(1)]) {
      const dispatches = (await batchGet(store, batch)).map((item) => parseItem(checkedDispatchSchema, item, 'dispatch'));
      const counted = dispatches.find((dispatch) => wentOut(dispatch.status));
      if (counted) return { dispatchId: counted.dispatchId, createdAt: counted.createdAt };
    }
  }
  return undefined;
}

async function newestWrittenBefore(workspaceId: string, phone: string, templateId: string, range: { start: string; end: string } | undefined, store: Store): Promise<Sent | undefined> {
  const where = accessPatterns.sendsOfTemplateToPhone(workspaceId, phone, templateId, range);
  const pages = paginateQuery(
    { client: store.db, pageSize: 25 },
    {
      TableName: store.tableName,
      ...where,
      FilterExpression: 'NOT (#status IN (:failed, :canceled))',
      ExpressionAttributeNames: { ...where.ExpressionAttributeNames, '#status': 'status' },
      ExpressionAttributeValues: { ...where.ExpressionAttributeValues, ':failed': 'failed', ':canceled': 'canceled' },
      ProjectionExpression: 'dispatchId, createdAt',
      ScanIndexForward: false,
    },
  );
  for await (const page of pages) {
    const newest = page.Items?.[0];
    if (newest) return parseItem(sentDispatchSchema, newest, 'dispatch');
  }
  return undefined;
}
