import * as z from '../../shared/zod';
import { mapWithConcurrency } from '../../shared/concurrency';
import { defaultStore } from '../../shared/default-store';
import type { Store } from '../../shared/store';
import { wibDays } from '../time/wib';
import { pageOf, paginationSchema } from './pagination';
import { dayTagRollups } from './report-items';

export interface ReportPeriod {
  startDate: string;
  endDate: string;
}

/** What the summary and the dispatch list open with (docs/api.md#reports): the period and the current rate. */
export const reportHeadSchema = z.object({
  period: z.object({ startDate: z.string(), endDate: z.string(), timezone: z.literal('Asia/Jakarta') }),
  rupiahPerCredit: z.number().check(z.gte(0)),
});
export type ReportHead = z.output<typeof reportHeadSchema>;

/** A tag row of tag discovery (docs/api.md#tracking-tags). */
export const tagCountSchema = z.object({ trackingTag: z.string(), dispatchCount: z.int().check(z.gte(0)) });
export type TagCount = z.output<typeof tagCountSchema>;

/** The body of GET /v1/messages/tracking-tags (docs/api.md#tracking-tags). */
export const tagDiscoveryPageSchema = z.object({ items: z.array(tagCountSchema), pagination: paginationSchema });

/** Days read at once: a year of days in a few dozen round trips. */
export const PARALLEL_DAYS = 16;

/**
 * Tracking tags used in a WIB period with their SENT-or-DELIVERED dispatch counts
 * (docs/api.md#tracking-tags): one Query per day on the per-day tag rollups, so the cost follows days × tags, not the
 * number of dispatches. Most-used tags first, then by name.
 */
export async function discoverTrackingTags(
  workspaceId: string,
  query: ReportPeriod & { prefix?: string; page: number; limit: number },
  store: Store = defaultStore(),
): Promise<z.output<typeof tagDiscoveryPageSchema>> {
  const perDay = await mapWithConcurrency(wibDays(query.startDate, query.endDate), PARALLEL_DAYS, (day) => dayTagRollups(workspaceId, day, query.prefix, store));
  const counts = new Map<string, number>();
  for (const { trackingTag, dispatchCount } of perDay.flat()) counts.set(trackingTag, (counts.get(trackingTag) ?? 0) + dispatchCount);
  const tags = [...counts]
    .filter(([, count]) => count > 0)
    .map(([trackingTag, dispatchCount]) => ({ trackingTag, dispatchCount }))
    .sort((a, b) => b.dispatchCount - a.dispatchCount || (a.trackingTag < b.trackingTag ? -1 : a.trackingTag > b.trackingTag ? 1 : 0));
  return pageOf(tags, query.page, query.limit);
}
