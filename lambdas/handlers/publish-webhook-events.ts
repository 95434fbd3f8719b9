import { BatchProcessor, EventType, processPartialResponse } from '@aws-lambda-powertools/batch';
import { injectLambdaContext } from '@aws-lambda-powertools/logger/middleware';
import type { AttributeValue } from '@aws-sdk/client-dynamodb';
import { unmarshall } from '@aws-sdk/util-dynamodb';
import middy from '@middy/core';
import type { Context, DynamoDBBatchResponse, DynamoDBRecord, DynamoDBStreamEvent } from 'aws-lambda';
import { publishStreamEvents, type Publication } from '../domain/webhooks/publish-events';
import { deliveryEventsOfChange, recordDeliveryEvents } from '../domain/delivery/delivery-event-projection';
import { providerMessageOfChange } from '../domain/delivery/provider-message';
import { streamEventOf, type StreamEvent } from '../domain/webhooks/stream-events';
import { isDispatchChange } from '../domain/webhooks/stream-filters';
import { dailySendReleaseOfFailure, releaseFailedDailySends } from '../domain/messages/daily-send';
import { logger } from '../shared/logger';
import { flushMetrics } from '../shared/metrics';
import type { BatchWriteRequest } from '../shared/batch-write';
import type { Write } from '../shared/writes';

/**
 * What a stream record asks of the consumer: the webhook event it tells of (an outbox insert or a
 * dispatch's change; the stack's filters let little else through), the items a dispatch's
 * change made: its delivery events (decision 112) and the wamid's item of a status that first told
 * it (decision 114), and, for
 * the change that failed it, the release of the day's send it took (decision 192).
 */
function changeOf(record: DynamoDBRecord): { event: StreamEvent | undefined; deliveryEvents: BatchWriteRequest[]; release: Write | undefined } {
  if (!record.dynamodb?.NewImage) return { event: undefined, deliveryEvents: [], release: undefined };
  // The stream's image is DynamoDB JSON; aws-lambda and the SDK each declare their own AttributeValue.
  const image = unmarshall(record.dynamodb.NewImage as Record<string, AttributeValue>);
  const dispatch = isDispatchChange(record);
  return {
    event: streamEventOf(record, image),
    deliveryEvents: dispatch ? [...deliveryEventsOfChange(image), ...providerMessageOfChange(image).map((item) => ({ put: item }))] : [],
    release: dispatch ? dailySendReleaseOfFailure(image) : undefined,
  };
}

function settle<T>(read: () => T): PromiseSettledResult<T> {
  try {
    return { status: 'fulfilled', value: read() };
  } catch (reason) {
    return { status: 'rejected', reason };
  }
}

const firstRejected = (...outcomes: PromiseSettledResult<unknown>[]): PromiseRejectedResult | undefined => outcomes.find((outcome): outcome is PromiseRejectedResult => outcome.status === 'rejected');

/**
 * The table's stream consumer: DynamoDB Streams records of outbox inserts and dispatch changes.
 * The delivery events the batch's changes made are written together, and its webhook events fanned
 * out to their workspaces' endpoints together, so their messages share queue requests (decision
 * 91); then each record succeeds or fails with both, and a failed one is handed over again by the
 * stream (decisions 78, 89, 112): a repeated event put writes the same item, a republished webhook
 * event keeps its id.
 */
export async function publishBatch(event: DynamoDBStreamEvent, context: Context): Promise<DynamoDBBatchResponse> {
  const read = event.Records.map((record) => settle(() => changeOf(record)));
  const [published, recorded, released] = await Promise.all([
    publishStreamEvents(read.flatMap((found) => (found.status === 'fulfilled' && found.value.event ? [found.value.event] : []))),
    recordDeliveryEvents(read.map((found) => (found.status === 'fulfilled' ? found.value.deliveryEvents : []))),
    releaseFailedDailySends(read.map((found) => (found.status === 'fulfilled' ? found.value.release : undefined))),
  ]);

  const outcomes = new Map<DynamoDBRecord, PromiseSettledResult<Publication>>();
  let next = 0;
  event.Records.forEach((record, i) => {
    const found = read[i]!;
    const publication: PromiseSettledResult<Publication> = found.status === 'fulfilled' && found.value.event ? published[next++]! : { status: 'fulfilled', value: undefined };
    outcomes.set(record, firstRejected(found, recorded[i]!, released[i]!, publication) ?? publication);
  });

  const finish = (record: DynamoDBRecord) => {
    const outcome = outcomes.get(record)!;
    if (outcome.status === 'rejected') {
      const error = outcome.reason instanceof Error ? outcome.reason : new Error(String(outcome.reason));
      // The batch processor keeps a record's error to itself: this line is the operator's one sign.
      logger.error('Stream record not published; the stream hands it over again', { eventId: record.eventID, sequenceNumber: record.dynamodb?.SequenceNumber, error });
      return Promise.reject(error);
    }
    if (outcome.value) logger.debug('Webhook event published', { eventId: outcome.value.event.eventId, type: outcome.value.event.type, endpoints: outcome.value.endpoints });
    return Promise.resolve();
  };
  return processPartialResponse(event, finish, new BatchProcessor(EventType.DynamoDBStreams), { context, throwOnFullBatchFailure: false });
}

// Its stream records carry dispatch images and customers' messages: never logged whole (decision 38).
export const handler = middy(publishBatch).use(injectLambdaContext(logger, { resetKeys: true, logEvent: false })).use(flushMetrics());
