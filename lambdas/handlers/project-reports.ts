import { injectLambdaContext } from '@aws-lambda-powertools/logger/middleware';
import type { AttributeValue } from '@aws-sdk/client-dynamodb';
import { unmarshall } from '@aws-sdk/util-dynamodb';
import middy from '@middy/core';
import type { DynamoDBStreamEvent } from 'aws-lambda';
import { foldReportsChanges, recordTagLinks, reportsChangeOf, writeWindowSums, type ReportsChange, type ReportsWindowState } from '../domain/reports/report-projection';
import { logger } from '../shared/logger';
import { flushMetrics } from '../shared/metrics';

/**
 * A DynamoDB Streams event with a tumbling window (https://docs.aws.amazon.com/lambda/latest/dg/services-ddb-windows.html):
 * the window the records belong to, the state the window's invocations so far returned, and
 * whether this is the window's last invocation.
 */
export interface ReportsWindowEvent extends DynamoDBStreamEvent {
  window: { start: string; end: string };
  state?: ReportsWindowState;
  shardId: string;
  eventSourceARN: string;
  isFinalInvokeForWindow: boolean;
  isWindowTerminatedEarly: boolean;
}

/** What Lambda keeps for the window's next invocation: a response without `state` counts as failed. */
export interface ReportsWindowResponse {
  state: ReportsWindowState;
}

/**
 * Lambda keeps at most 1 MB of a window's state a shard and cuts the window short past it, which
 * its docs do not say keeps the sums; a window of tags unique to each dispatch (one per invoice)
 * passes that in a batch. Past half of it the sums are written at once, as a window's end does.
 */
export const STATE_FLUSH_BYTES = 512 * 1024;

/**
 * The report projection (decision 113): the changes of dispatches' standing in the reports, from
 * the table's stream. Each batch's tag links are written at once; its rollup deltas are added to
 * the window's state, and the window's last invocation writes the sums, or an earlier one once the
 * state passes STATE_FLUSH_BYTES: the next state starts at a later record, so its sums have a
 * marker of their own. Any failure fails the whole invocation: Lambda hands the batch over again
 * with the state as it was before it, so nothing is summed twice.
 */
export async function projectReports(event: ReportsWindowEvent): Promise<ReportsWindowResponse> {
  const changes = event.Records.flatMap((record): ReportsChange[] => {
    if (!record.dynamodb?.NewImage) return [];
    // The stream's image is DynamoDB JSON; aws-lambda and the SDK each declare their own AttributeValue.
    const change = reportsChangeOf(unmarshall(record.dynamodb.NewImage as Record<string, AttributeValue>));
    return change ? [change] : [];
  });
  if (changes.length) await recordTagLinks(changes);
  const state = foldReportsChanges(event.state ?? {}, changes, event.Records[0]?.dynamodb?.SequenceNumber);
  const full = !event.isFinalInvokeForWindow && Buffer.byteLength(JSON.stringify(state)) > STATE_FLUSH_BYTES;
  if (!event.isFinalInvokeForWindow && !full) return { state };
  await writeWindowSums({ shardId: event.shardId, start: event.window.start }, state);
  logger.debug('Report window written', { shardId: event.shardId, window: event.window, rollups: Object.keys(state.sums ?? {}).length, terminatedEarly: event.isWindowTerminatedEarly, full });
  return { state: {} };
}

// Its stream records carry dispatch images (the recipient's number, the message's values): never logged whole (decision 38).
export const handler = middy(projectReports).use(injectLambdaContext(logger, { resetKeys: true, logEvent: false })).use(flushMetrics());
