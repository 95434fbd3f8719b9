import { mapWithConcurrency } from '../../shared/concurrency';
import { defaultStore } from '../../shared/default-store';
import { queryAll } from '../../shared/query-all';
import type { Store } from '../../shared/store';
import { prefixes } from '../../shared/table';
import { wibDays } from '../time/wib';
import { pageOf, type Pagination } from './pagination';

export interface ReportPeriod {
  startDate: string;
  endDate: string;
}

export interface TagCount {
  trackingTag: string;
  dispatchCount: number;
}

/** Days read at once: a year of days in a few dozen round trips. */
export const PARALLEL_DAYS = 16;

/**
 * Tracking tags used in a WIB period with their SENT-or-DELIVERED dispatch counts (contract
 * §4.3): one Query per day on the per-day tag rollups, so the cost follows days × tags, not the
 * number of dispatches. Most-used tags first, then by name.
 */
export async function discoverTrackingTags(
  workspaceId: string,
  query: ReportPeriod & { prefix?: string; page: number; limit: number },
  store: Store = defaultStore(),
): Promise<{ items: TagCount[]; pagination: Pagination }> {
  const perDay = await mapWithConcurrency(wibDays(query.startDate, query.endDate), PARALLEL_DAYS, (day) =>
    queryAll(store, {
      KeyConditionExpression: query.prefix ? 'pk = :pk AND begins_with(sk, :prefix)' : 'pk = :pk',
      ExpressionAttributeValues: { ':pk': prefixes.tagsOfDay(workspaceId, day).pk, ...(query.prefix ? { ':prefix': query.prefix } : {}) },
    }),
  );
  const counts = new Map<string, number>();
  for (const item of perDay.flat()) counts.set(item.sk as string, (counts.get(item.sk as string) ?? 0) + (item.dispatchCount as number));
  const tags = [...counts]
    .filter(([, count]) => count > 0)
    .map(([trackingTag, dispatchCount]) => ({ trackingTag, dispatchCount }))
    .sort((a, b) => b.dispatchCount - a.dispatchCount || (a.trackingTag < b.trackingTag ? -1 : a.trackingTag > b.trackingTag ? 1 : 0));
  return pageOf(tags, query.page, query.limit);
}
