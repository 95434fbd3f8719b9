import { BatchProcessor, EventType, processPartialResponse } from '@aws-lambda-powertools/batch';
import { injectLambdaContext } from '@aws-lambda-powertools/logger/middleware';
import middy from '@middy/core';
import type { Context, SQSBatchResponse, SQSEvent, SQSRecord } from 'aws-lambda';
import { deliverEvent, type EventDeliveryDependencies } from '../domain/webhooks/deliver-event';
import { eventDeliveryMessageSchema } from '../domain/webhooks/event-queue';
import { endpointReadsOfBatch } from '../domain/webhooks/webhook-endpoint-repository';
import { logger } from '../shared/logger';
import { flushMetrics } from '../shared/metrics';
import { readQueueRecord } from '../shared/queue-record';

/**
 * One webhook-events record: one attempt of one event at one endpoint. A receiver's failure is
 * not a record failure (the retry is a new message); only our own (the table or the queue did not
 * answer) fails the record, for SQS to redeliver and, after five receives, to move to the DLQ.
 */
export async function deliverEventRecord(record: SQSRecord, deps: EventDeliveryDependencies = {}): Promise<void> {
  const message = readQueueRecord(record, eventDeliveryMessageSchema, 'webhook event');
  if (!message) return;
  const outcome = await deliverEvent(message, { ...deps, firstReceive: record.attributes.ApproximateReceiveCount === '1' });
  const { workspaceId, endpointId, eventId, attempt } = message;
  // A delivered event is counted (WebhookEventsDelivered) and kept as a delivery record the workspace
  // reads; its line would be five of a message's log lines at one endpoint (docs/cost.md). What the
  // runbook looks for, the failures, stays at INFO.
  if (outcome === 'delivered') logger.debug('Webhook delivery attempt', { workspaceId, endpointId, eventId, attempt, outcome });
  else if (outcome !== 'waiting') logger.info('Webhook delivery attempt', { workspaceId, endpointId, eventId, attempt, outcome });
}

/**
 * The webhook-events consumer. The batch's records are posted at once, not one after another, so
 * a receiver that is slow (up to WEBHOOK_TIMEOUT_MS) holds up none of the others in its batch; and
 * they read each endpoint once between them (a workspace's events mostly go to its one endpoint).
 */
export const deliverEventBatch = (event: SQSEvent, context: Context): Promise<SQSBatchResponse> => {
  const deps: EventDeliveryDependencies = { endpoints: endpointReadsOfBatch() };
  // A record that throws is a fault of ours (a receiver's answer is an outcome, not an error); the
  // batch processor keeps its error to itself, so it is logged here.
  const deliver = (record: SQSRecord) =>
    deliverEventRecord(record, deps).catch((error: unknown) => {
      logger.error('Webhook event not handled; the message comes back', { messageId: record.messageId, receiveCount: Number(record.attributes.ApproximateReceiveCount), error: error as Error });
      throw error;
    });
  return processPartialResponse(event, deliver, new BatchProcessor(EventType.SQS), { context, throwOnFullBatchFailure: false });
};

// Its messages carry the events' payloads, a customer's reply among them: never logged whole (decision 38).
export const handler = middy(deliverEventBatch).use(injectLambdaContext(logger, { resetKeys: true, logEvent: false })).use(flushMetrics());
