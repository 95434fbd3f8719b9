import { BatchProcessor, EventType, processPartialResponse } from '@aws-lambda-powertools/batch';
import { injectLambdaContext } from '@aws-lambda-powertools/logger/middleware';
import type { AttributeValue } from '@aws-sdk/client-dynamodb';
import { unmarshall } from '@aws-sdk/util-dynamodb';
import middy from '@middy/core';
import type { Context, DynamoDBBatchResponse, DynamoDBRecord, DynamoDBStreamEvent } from 'aws-lambda';
import { isOutboxInsert, toOutboxEvent } from '../domain/webhooks/outbox-item';
import { publishEvent } from '../domain/webhooks/publish-events';
import { logger } from '../shared/logger';
import { flushMetrics } from '../shared/metrics';

/**
 * One stream record: an outbox insert (the stack's filter lets nothing else through; anything
 * else is passed over), fanned out to the workspace's endpoints. A failure fails the record, so
 * the stream retries it (decision 78).
 */
export async function publishRecord(record: DynamoDBRecord): Promise<void> {
  if (!isOutboxInsert(record)) return;
  // The stream's image is DynamoDB JSON; aws-lambda and the SDK each declare their own AttributeValue.
  const event = toOutboxEvent(unmarshall(record.dynamodb!.NewImage as Record<string, AttributeValue>));
  const endpoints = await publishEvent(event);
  logger.debug('Webhook event published', { eventId: event.eventId, type: event.type, endpoints });
}

/** The outbox publisher: DynamoDB Streams records of outbox inserts, with partial batch failures. */
export const publishBatch = (event: DynamoDBStreamEvent, context: Context): Promise<DynamoDBBatchResponse> =>
  processPartialResponse(event, publishRecord, new BatchProcessor(EventType.DynamoDBStreams), { context, throwOnFullBatchFailure: false });

export const handler = middy(publishBatch).use(injectLambdaContext(logger, { resetKeys: true })).use(flushMetrics());
