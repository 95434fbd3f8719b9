import { BatchProcessor, EventType, processPartialResponse } from '@aws-lambda-powertools/batch';
import { injectLambdaContext } from '@aws-lambda-powertools/logger/middleware';
import type { AttributeValue } from '@aws-sdk/client-dynamodb';
import { unmarshall } from '@aws-sdk/util-dynamodb';
import middy from '@middy/core';
import type { Context, DynamoDBBatchResponse, DynamoDBRecord, DynamoDBStreamEvent } from 'aws-lambda';
import { publishStreamEvent } from '../domain/webhooks/publish-events';
import { streamEventOf } from '../domain/webhooks/stream-events';
import { logger } from '../shared/logger';
import { flushMetrics } from '../shared/metrics';

/**
 * One stream record: an outbox insert or a dispatch's change (the stack's filters let nothing
 * else through; anything else is passed over), fanned out to the workspace's endpoints. A failure
 * fails the record, so the stream retries it (decisions 78, 89).
 */
export async function publishRecord(record: DynamoDBRecord): Promise<void> {
  if (!record.dynamodb?.NewImage) return;
  // The stream's image is DynamoDB JSON; aws-lambda and the SDK each declare their own AttributeValue.
  const found = streamEventOf(record, unmarshall(record.dynamodb.NewImage as Record<string, AttributeValue>));
  const published = found && (await publishStreamEvent(found));
  if (published) logger.debug('Webhook event published', { eventId: published.event.eventId, type: published.event.type, endpoints: published.endpoints });
}

/** The publisher: DynamoDB Streams records of outbox inserts and dispatch changes, with partial batch failures. */
export const publishBatch = (event: DynamoDBStreamEvent, context: Context): Promise<DynamoDBBatchResponse> =>
  processPartialResponse(event, publishRecord, new BatchProcessor(EventType.DynamoDBStreams), { context, throwOnFullBatchFailure: false });

export const handler = middy(publishBatch).use(injectLambdaContext(logger, { resetKeys: true })).use(flushMetrics());
