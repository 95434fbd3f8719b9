import { QueryCommand } from '@aws-sdk/lib-dynamodb';
import * as z from 'zod';
import { defaultStore } from '../../shared/default-store';
import { ValidationError } from '../../shared/errors';
import type { Store } from '../../shared/store';
import { prefixes } from '../../shared/table';
import { toE164 } from '../phones/phone-number';
import { instant } from '../time/instant';
import { wibRange } from '../time/wib';

/** The body of GET /v1/messages/send-check (docs/api.md#send-check). */
export const sendCheckSchema = z.object({
  sent: z.boolean(),
  dispatchId: z.guid().nullable(),
  submittedAt: instant().nullable(),
});
export type SendCheck = z.output<typeof sendCheckSchema>;

/**
 * Whether the workspace sent `templateId` to `phone` (docs/api.md#send-check): the newest dispatch that is
 * not failed or canceled, over the whole history or one WIB day. Newest first on the send-check
 * index, so the answer is usually the first item read.
 */
export async function checkSend(workspaceId: string, query: { phone: string; templateId: string; date?: string }, store: Store = defaultStore()): Promise<SendCheck> {
  const phone = toE164(query.phone);
  if (!phone) throw new ValidationError(`query.phone: "${query.phone}" is not a valid phone number`);
  const { gsi1pk } = prefixes.sendsOfTemplateToPhone(workspaceId, phone, query.templateId);
  const day = query.date ? wibRange(query.date, query.date) : undefined;

  let cursor: Record<string, unknown> | undefined;
  do {
    const page = await store.db.send(
      new QueryCommand({
        TableName: store.tableName,
        IndexName: 'gsi1',
        KeyConditionExpression: day ? 'gsi1pk = :pk AND gsi1sk BETWEEN :start AND :end' : 'gsi1pk = :pk',
        FilterExpression: 'NOT (#status IN (:failed, :canceled))',
        ExpressionAttributeNames: { '#status': 'status' },
        ExpressionAttributeValues: { ':pk': gsi1pk, ':failed': 'failed', ':canceled': 'canceled', ...(day ? { ':start': day.start, ':end': day.end } : {}) },
        ProjectionExpression: 'dispatchId, createdAt',
        ScanIndexForward: false,
        Limit: 25,
        ExclusiveStartKey: cursor,
      }),
    );
    const newest = page.Items?.[0];
    if (newest) return { sent: true, dispatchId: newest.dispatchId as string, submittedAt: newest.createdAt as string };
    cursor = page.LastEvaluatedKey;
  } while (cursor);
  return { sent: false, dispatchId: null, submittedAt: null };
}
