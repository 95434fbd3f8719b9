import { DISPATCH_ENTITY, REPORTS_CHANGE_MADE } from '../messages/dispatch';
import type { StreamRecord } from '../webhooks/stream-filters';

/**
 * What the report projection takes from the table's stream (decision 113): the updates of a
 * dispatch that name a change of its standing in the reports. The event source filters, so no
 * other write costs the projection an invocation; the local stream poller applies the same test.
 */
export const reportsChangeStreamFilter = { eventName: ['MODIFY'], dynamodb: { NewImage: { entity: { S: [DISPATCH_ENTITY] }, [REPORTS_CHANGE_MADE]: { N: ['1', '-1'] } } } } as const;

type ReportsStreamRecord = StreamRecord & { dynamodb?: { NewImage?: Record<string, { S?: string; N?: string }> } };

/** Whether a stream record (DynamoDB JSON) passes `reportsChangeStreamFilter`. */
export const isReportsChange = (record: ReportsStreamRecord): boolean => {
  const image = record.dynamodb?.NewImage;
  return record.eventName === 'MODIFY' && image?.entity?.S === DISPATCH_ENTITY && (image[REPORTS_CHANGE_MADE]?.N === '1' || image[REPORTS_CHANGE_MADE]?.N === '-1');
};
