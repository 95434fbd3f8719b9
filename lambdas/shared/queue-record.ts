import type { SQSRecord } from 'aws-lambda';
import { logger } from './logger';
import type * as z from './zod';

/**
 * A queue record's JSON body, read with `schema`. A body that cannot be read never will be: it is
 * logged and dropped (undefined) rather than retried until it reaches the DLQ.
 */
export function readQueueRecord<T>(record: SQSRecord, schema: z.ZodMiniType<T>, what: string): T | undefined {
  let body: unknown;
  try {
    body = JSON.parse(record.body);
  } catch {
    body = undefined;
  }
  const parsed = schema.safeParse(body);
  if (parsed.success) return parsed.data;
  logger.error(`Unreadable ${what} message dropped`, { messageId: record.messageId, issues: parsed.error.issues });
  return undefined;
}
