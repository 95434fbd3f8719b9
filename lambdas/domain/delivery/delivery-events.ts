import * as z from 'zod';
import { defaultStore } from '../../shared/default-store';
import { mapWithConcurrency } from '../../shared/concurrency';
import { queryAll } from '../../shared/query-all';
import type { Store } from '../../shared/store';
import { prefixes } from '../../shared/table';
import { toE164 } from '../phones/phone-number';
import { wibRange } from '../time/wib';
import { instant } from '../time/instant';
import { deliveryEventStatuses, type DeliveryEventStatus } from './transitions';

/** A delivery status event (docs/api.md#delivery-status); `failureCode` only when the provider gave one. */
export const deliveryEventSchema = z.object({
  dispatchId: z.guid(),
  status: z.enum(deliveryEventStatuses),
  occurredAt: instant(),
  failureCode: z.string().optional(),
});
export type DeliveryEvent = z.output<typeof deliveryEventSchema>;

/** The events of one requested phone, as it was given (docs/api.md#delivery-status). */
export const phoneEventsSchema = z.object({ phone: z.string(), events: z.array(deliveryEventSchema) });

/** Phones looked up at once: enough to finish 500 quickly, few enough not to flood the table. */
const PARALLEL_QUERIES = 16;

/**
 * Delivery events of each phone in a WIB date range (docs/api.md#delivery-status), oldest first: one Query per
 * distinct normalized number on the phone index. Each phone comes back as it was given; one that
 * is not a phone number simply has no events.
 */
export async function deliveryEventsForPhones(
  workspaceId: string,
  phones: string[],
  range: { startDate: string; endDate: string },
  store: Store = defaultStore(),
): Promise<z.output<typeof phoneEventsSchema>[]> {
  const { start, end } = wibRange(range.startDate, range.endDate);
  const normalized = phones.map((phone) => toE164(phone));
  const distinct = [...new Set(normalized.filter((phone): phone is string => !!phone))];
  const found = await mapWithConcurrency(distinct, PARALLEL_QUERIES, async (phone) => {
    const items = await queryAll(store, {
      IndexName: 'gsi1',
      KeyConditionExpression: 'gsi1pk = :pk AND gsi1sk BETWEEN :start AND :end',
      // The sort key is `<occurredAt>#…`; the range end is exclusive, and `<end>#…` sorts after `<end>`.
      ExpressionAttributeValues: { ':pk': prefixes.deliveryEventsOfPhone(workspaceId, phone).gsi1pk, ':start': start, ':end': end },
    });
    return items.map(
      (item): DeliveryEvent => ({
        dispatchId: item.dispatchId as string,
        status: item.status as DeliveryEventStatus,
        occurredAt: item.occurredAt as string,
        ...(item.failureCode ? { failureCode: item.failureCode as string } : {}),
      }),
    );
  });
  const byPhone = new Map(distinct.map((phone, i) => [phone, found[i]!]));

  return phones.map((phone, i) => ({ phone, events: byPhone.get(normalized[i] ?? '') ?? [] }));
}
