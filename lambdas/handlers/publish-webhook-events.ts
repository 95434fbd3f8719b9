import { BatchProcessor, EventType, processPartialResponse } from '@aws-lambda-powertools/batch';
import { injectLambdaContext } from '@aws-lambda-powertools/logger/middleware';
import type { AttributeValue } from '@aws-sdk/client-dynamodb';
import { unmarshall } from '@aws-sdk/util-dynamodb';
import middy from '@middy/core';
import type { Context, DynamoDBBatchResponse, DynamoDBRecord, DynamoDBStreamEvent } from 'aws-lambda';
import { publishStreamEvents, type Publication } from '../domain/webhooks/publish-events';
import { streamEventOf, type StreamEvent } from '../domain/webhooks/stream-events';
import { logger } from '../shared/logger';
import { flushMetrics } from '../shared/metrics';

/** The event a stream record tells of: an outbox insert or a dispatch's change (the stack's filters let little else through); undefined for anything else. */
function eventOf(record: DynamoDBRecord): StreamEvent | undefined {
  if (!record.dynamodb?.NewImage) return undefined;
  // The stream's image is DynamoDB JSON; aws-lambda and the SDK each declare their own AttributeValue.
  return streamEventOf(record, unmarshall(record.dynamodb.NewImage as Record<string, AttributeValue>));
}

function settle<T>(read: () => T): PromiseSettledResult<T> {
  try {
    return { status: 'fulfilled', value: read() };
  } catch (reason) {
    return { status: 'rejected', reason };
  }
}

/**
 * The publisher: DynamoDB Streams records of outbox inserts and dispatch changes, fanned out to
 * their workspaces' endpoints. The batch's events are published together, so their messages share
 * queue requests (decision 91); then each record succeeds or fails with its own event, and a
 * failed one is handed over again by the stream (decisions 78, 89).
 */
export async function publishBatch(event: DynamoDBStreamEvent, context: Context): Promise<DynamoDBBatchResponse> {
  const read = event.Records.map((record) => settle(() => eventOf(record)));
  const published = await publishStreamEvents(read.flatMap((found) => (found.status === 'fulfilled' && found.value ? [found.value] : [])));

  const outcomes = new Map<DynamoDBRecord, PromiseSettledResult<Publication>>();
  let next = 0;
  event.Records.forEach((record, i) => {
    const found = read[i]!;
    outcomes.set(record, found.status === 'rejected' ? found : found.value ? published[next++]! : { status: 'fulfilled', value: undefined });
  });

  const finish = (record: DynamoDBRecord) => {
    const outcome = outcomes.get(record)!;
    if (outcome.status === 'rejected') return Promise.reject(outcome.reason instanceof Error ? outcome.reason : new Error(String(outcome.reason)));
    if (outcome.value) logger.debug('Webhook event published', { eventId: outcome.value.event.eventId, type: outcome.value.event.type, endpoints: outcome.value.endpoints });
    return Promise.resolve();
  };
  return processPartialResponse(event, finish, new BatchProcessor(EventType.DynamoDBStreams), { context, throwOnFullBatchFailure: false });
}

export const handler = middy(publishBatch).use(injectLambdaContext(logger, { resetKeys: true })).use(flushMetrics());
