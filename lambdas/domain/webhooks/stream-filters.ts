import { DISPATCH_ENTITY } from '../messages/dispatch';
import { isOutboxInsert, outboxStreamFilter } from './outbox-item';

/**
 * What the publisher takes from the table's stream (decisions 78, 89): outbox inserts, written in
 * the transaction of the change they tell of (`message.received`, `template.status.updated`,
 * `marketing_opt_out.updated`), and every update of a dispatch. Each update of a dispatch is one change of its GET body
 * (`dispatch-repository.sequenceStep`), and its new image is the body after exactly that change,
 * so the record is the change's `message.status.updated` without an outbox item beside it.
 */
export const dispatchChangeStreamFilter = { eventName: ['MODIFY'], dynamodb: { NewImage: { entity: { S: [DISPATCH_ENTITY] } } } } as const;

/** The publisher's event source filters (lib/constructs/webhook-pipeline.ts); a record passes if it matches either. */
export const publisherStreamFilters = [outboxStreamFilter, dispatchChangeStreamFilter] as const;

export type StreamRecord = { eventName?: string; dynamodb?: { NewImage?: Record<string, { S?: string }> } };

export const isDispatchChange = (record: StreamRecord): boolean => record.eventName === 'MODIFY' && record.dynamodb?.NewImage?.entity?.S === DISPATCH_ENTITY;

/** Whether a stream record (DynamoDB JSON) passes `publisherStreamFilters`: the local stream poller applies it. */
export const isPublishable = (record: StreamRecord): boolean => isOutboxInsert(record) || isDispatchChange(record);
