import type { SQSRecord } from 'aws-lambda';
import { logger } from './logger';
import type * as z from './zod';

function parseBody<T>(record: SQSRecord, schema: z.ZodMiniType<T>) {
  let body: unknown;
  try {
    body = JSON.parse(record.body);
  } catch {
    body = undefined;
  }
  return schema.safeParse(body);
}

/**
 * A queue record's JSON body, read with `schema`. A body that cannot be read never will be: it is
 * logged and dropped (undefined) rather than retried until it reaches the DLQ.
 */
export function readQueueRecord<T>(record: SQSRecord, schema: z.ZodMiniType<T>, what: string): T | undefined {
  const parsed = parseBody(record, schema);
  if (parsed.success) return parsed.data;
  logger.error(`Unreadable ${what} message dropped`, { messageId: record.messageId, issues: parsed.error.issues });
  return undefined;
}

/** The same body read ahead of `readQueueRecord` (which logs and drops what it cannot read): undefined, quietly. */
export function peekQueueRecord<T>(record: SQSRecord, schema: z.ZodMiniType<T>): T | undefined {
  const parsed = parseBody(record, schema);
  return parsed.success ? parsed.data : undefined;
}
