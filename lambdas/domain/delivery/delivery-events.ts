import * as z from '../../shared/zod';
import { defaultStore } from '../../shared/default-store';
import { mapWithConcurrency } from '../../shared/concurrency';
import { queryAll } from '../../shared/query-all';
import type { Store } from '../../shared/store';
import { parseItem } from '../../shared/stored-item';
import { accessPatterns } from '../../shared/table';
import { toE164 } from '../phones/phone-number';
import { wibRange } from '../time/wib';
import { instant } from '../time/instant';
import { deliveryEventStatuses } from './transitions';

/** The delivery event item: one per dispatch and event status, read back here; written by delivery-event-projection.ts. */

/** A delivery status event (docs/api.md#delivery-status); `failureCode` only when the provider gave one. */
export const deliveryEventSchema = z.object({
  dispatchId: z.guid(),
  status: z.enum(deliveryEventStatuses),
  occurredAt: instant(),
  failureCode: z.optional(z.string()),
});
export type DeliveryEvent = z.output<typeof deliveryEventSchema>;

const storedEventSchema = z.object({ dispatchId: z.string(), status: z.enum(deliveryEventStatuses), occurredAt: z.string(), failureCode: z.optional(z.string()) });

/** The events of one requested phone, as it was given (docs/api.md#delivery-status). */
export const phoneEventsSchema = z.object({ phone: z.string(), events: z.array(deliveryEventSchema) });

/** The order both partitions keep: time, then dispatch, then status. */
const eventOrder = (event: DeliveryEvent) => `${event.occurredAt}#${event.dispatchId}#${event.status}`;
const compare = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);

/** Phones looked up at once: enough to finish 500 quickly, few enough not to flood the table. */
const PARALLEL_QUERIES = 16;

/**
 * Delivery events of each phone in a WIB date range (docs/api.md#delivery-status), oldest first: per
 * distinct normalized number, a Query of its events' partition, and one of the phone index for
 * events written before they had a partition of their own (decision 101), merged by time. Each
 * phone comes back as it was given; one that is not a phone number simply has no events.
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
    // Sort keys are `<occurredAt>#<dispatchId>#<status>` in both; the range end is exclusive, and `<end>#…` sorts after `<end>`.
    const [current, before] = await Promise.all([
      queryAll(store, accessPatterns.eventsOfPhone(workspaceId, phone, start, end)),
      queryAll(store, accessPatterns.deliveryEventsOfPhone(workspaceId, phone, start, end)),
    ]);
    return [...current, ...before]
      .map((item): DeliveryEvent => {
        const { dispatchId, status, occurredAt, failureCode } = parseItem(storedEventSchema, item, 'delivery event');
        return { dispatchId, status, occurredAt, ...(failureCode ? { failureCode } : {}) };
      })
      .sort((a, b) => compare(eventOrder(a), eventOrder(b)));
  });
  const byPhone = new Map(distinct.map((phone, i) => [phone, found[i]!]));

  return phones.map((phone, i) => ({ phone, events: byPhone.get(normalized[i] ?? '') ?? [] }));
}
