import { paginateQuery } from '@aws-sdk/lib-dynamodb';
import * as z from '../../shared/zod';
import { defaultStore } from '../../shared/default-store';
import { ValidationError } from '../../shared/errors';
import type { Store } from '../../shared/store';
import { parseItem } from '../../shared/stored-item';
import { accessPatterns } from '../../shared/table';
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

/**
 * Whether the workspace sent `templateId` to `phone` (docs/api.md#send-check): the newest dispatch that is
 * not failed or canceled, over the whole history or one WIB day. Newest first on the send-check
 * index, so the answer is usually the first item read.
 */
export async function checkSend(workspaceId: string, query: { phone: string; templateId: string; date?: string }, store: Store = defaultStore()): Promise<SendCheck> {
  const phone = toE164(query.phone);
  if (!phone) throw new ValidationError(`query.phone: "${query.phone}" is not a valid phone number`);
  const where = accessPatterns.sendsOfTemplateToPhone(workspaceId, phone, query.templateId, query.date ? wibRange(query.date, query.date) : undefined);
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
    if (newest) {
      const { dispatchId, createdAt } = parseItem(sentDispatchSchema, newest, 'dispatch');
      return { sent: true, dispatchId, submittedAt: createdAt };
    }
  }
  return { sent: false, dispatchId: null, submittedAt: null };
}
