import { rupiah } from '../../shared/rupiah';
import * as z from '../../shared/zod';
import { batchGet } from '../../shared/batch-get';
import { defaultStore } from '../../shared/default-store';
import { queryAll, queryNewestFirst } from '../../shared/query-all';
import type { Store } from '../../shared/store';
import { parseItem } from '../../shared/stored-item';
import { mapPages, mergeNewestFirst } from '../../shared/merge-newest-first';
import { accessPatterns, keys, tableDefinition } from '../../shared/table';
import { countsAsSent } from '../delivery/transitions';
import { instant } from '../time/instant';
import type { Dispatch } from '../messages/dispatch';
import { storedDispatchFields, toDispatch, type ReportEntry } from '../messages/dispatch-repository';
import { wibRange } from '../time/wib';
import { paginationOf, paginationSchema, type Pagination } from './pagination';
import { dayRollups, newestTagLinks, tagLinks, tagRollups } from './report-items';
import { reportHeadSchema, type ReportPeriod } from './tag-discovery';

/** A dispatch row of the report list: every field of docs/api.md#tracking-dispatch-list, nullable ones null. */
export const dispatchRowSchema = z.object({
  dispatchId: z.guid(),
  recipientPhone: z.string(),
  templateId: z.guid(),
  templateName: z.string(),
  source: z.enum(['EXTERNAL_API', 'BROADCAST', 'INBOX']),
  apiClient: z.nullable(z.object({ id: z.guid(), name: z.string() })),
  status: z.enum(['SENT', 'DELIVERED']),
  trackingTags: z.array(z.string()),
  creditCost: z.int().check(z.gte(0)),
  amountRupiah: z.number().check(z.gte(0)),
  createdAt: instant(),
  sentAt: z.nullable(instant()),
  deliveredAt: z.nullable(instant()),
});
export type DispatchRow = z.output<typeof dispatchRowSchema>;

/** The body of GET /v1/messages/tracking-report/dispatches (docs/api.md#tracking-dispatch-list). */
export const dispatchListReportSchema = z.extend(reportHeadSchema, { items: z.array(dispatchRowSchema), pagination: paginationSchema });

export type DispatchSelector = { scope: 'WORKSPACE' } | { trackingTags: readonly string[]; match: 'ANY' | 'ALL' };

export interface DispatchListQuery extends ReportPeriod {
  page: number;
  limit: number;
  selector: DispatchSelector;
}

/**
 * A reportable (sent or delivered) dispatch's row, from the fields its report entry carries: its
 * status is told by `deliveredAt`, which only the move to delivered sets, so the entry need not
 * carry `status`, which the claim changes too (decision 104).
 */
export const toDispatchRow = (dispatch: ReportEntry): DispatchRow => ({
  dispatchId: dispatch.dispatchId,
  recipientPhone: dispatch.to,
  templateId: dispatch.templateId,
  templateName: dispatch.templateName,
  source: dispatch.source,
  apiClient: dispatch.apiClient,
  status: dispatch.deliveredAt ? 'DELIVERED' : 'SENT',
  trackingTags: dispatch.trackingTags,
  creditCost: dispatch.creditCost,
  // A dispatch fixed before amounts were kept to the sen may carry float noise (decision 168).
  amountRupiah: rupiah(dispatch.amountRupiah),
  createdAt: dispatch.createdAt,
  sentAt: dispatch.sentAt,
  deliveredAt: dispatch.deliveredAt,
});

/** A page of the list: its totals at once, its rows as they are read, in order. */
export interface DispatchListPage {
  pagination: Pagination;
  rows: AsyncIterable<DispatchRow[]>;
}

/**
 * SENT-or-DELIVERED dispatches of a WIB period, newest first (`createdAt`, then id), a page at a
 * time with exact totals (docs/api.md#tracking-dispatch-list). Rows arrive in chunks of at most 100, so a page of
 * 100 000 rows is streamed, never held whole.
 *
 * With `scope=WORKSPACE`, or a single tag, the totals per WIB day come from counters written in
 * the same transaction as the index entries, so a page skips whole days without reading them and
 * reads only inside the day where it starts: page 1 costs about its own size; a deep page costs
 * its size plus the rows before it in its first day. With several tags (ANY or ALL) the tags'
 * index entries in the period are read and merged, so the cost follows the matching dispatches.
 */
export async function listReportDispatches(workspaceId: string, query: DispatchListQuery, store: Store = defaultStore()): Promise<DispatchListPage> {
  const { selector } = query;
  const tags = 'trackingTags' in selector ? [...new Set(selector.trackingTags)] : [];
  const page = 'scope' in selector || tags.length === 1 ? await countedPage(workspaceId, query, tags[0], store) : await mergedPage(workspaceId, query, tags, store);
  return { pagination: paginationOf(query.page, query.limit, page.total), rows: page.rows };
}

/** Every row of a page, for callers that want it whole. */
export async function readAllRows(page: DispatchListPage): Promise<DispatchRow[]> {
  const rows: DispatchRow[] = [];
  for await (const chunk of page.rows) rows.push(...chunk);
  return rows;
}

/** A dispatch read whole as a row; none for one that failed between the index read and this one (no longer reportable). */
const rowOf = (dispatch: Dispatch): DispatchRow | undefined => (countsAsSent(dispatch.status) ? toDispatchRow(dispatch) : undefined);
const rowsOf = (dispatches: Dispatch[]): DispatchRow[] => dispatches.flatMap((dispatch) => rowOf(dispatch) ?? []);

/** A report entry as stored: the dispatch's own schema, of the attributes gsi4 projects. Here, not beside the dispatch's: only this module reads it. */
const reportEntrySchema = storedDispatchFields(tableDefinition.indexes.gsi4.nonKeyAttributes);
const toReportEntry = (item: Record<string, unknown>): ReportEntry => parseItem(reportEntrySchema, item, 'dispatch report entry');

/**
 * Every dispatch of a WIB day that counts as sent, as its report entry says (or its whole copy on
 * gsi2, written before decision 104): what the day's report items must add up to (report-rebuild.ts).
 */
export async function countedDispatchesOfDay(workspaceId: string, day: string, store: Store): Promise<ReportEntry[]> {
  const [entries, copies] = await Promise.all([queryAll(store, accessPatterns.sentOnDay(workspaceId, day)), queryAll(store, accessPatterns.indexedSentOnDay(workspaceId, day))]);
  return [...entries.map(toReportEntry).filter((entry) => entry.failureCode === null), ...copies.map(toDispatch).filter((dispatch) => countsAsSent(dispatch.status))];
}

/** A day's dispatches as the WORKSPACE list reads them: one's report entry, or its whole copy on gsi2 from before decision 104. */
type SentEntry = { order: string; row: DispatchRow | undefined };

/**
 * A WIB day's sent dispatches newest first, until `count` have been read: report entries (gsi4)
 * and whole copies written before decision 104 (gsi2) merged, both ordered `<createdAt>#<dispatchId>`.
 * A function, not a constant, so the writers' bundles do not keep `accessPatterns` (decision 102).
 */
function newestSentOfDay(workspaceId: string, day: string, count: number, store: Store): AsyncIterable<SentEntry[]> {
  const { gsi2, gsi4 } = tableDefinition.indexes;
  const entries = mapPages(queryNewestFirst(store, accessPatterns.sentOnDay(workspaceId, day), count), (item) => {
    const entry = toReportEntry(item);
    // A failure moves the dispatch out; only a function from before decision 104, during the deploy, leaves its entry behind.
    return { order: String(item[gsi4.sortKey]), row: entry.failureCode === null ? toDispatchRow(entry) : undefined };
  });
  const copies = mapPages(queryNewestFirst(store, accessPatterns.indexedSentOnDay(workspaceId, day), count), (item) => ({ order: String(item[gsi2.sortKey]), row: rowOf(toDispatch(item)) }));
  return mergeNewestFirst([entries, copies], (entry) => entry.order);
}

const CHUNK = 100;

/** One partition per WIB day (the workspace's sent index, or one tag's links), with known counts. */
async function countedPage(workspaceId: string, query: DispatchListQuery, tag: string | undefined, store: Store): Promise<{ rows: AsyncIterable<DispatchRow[]>; total: number }> {
  const perDay = tag ? await tagCountsByDay(workspaceId, tag, query, store) : await workspaceCountsByDay(workspaceId, query, store);
  const total = [...perDay.values()].reduce((sum, count) => sum + count, 0);

  // Which days the page touches, and how many rows to pass over in the first.
  const plan: { day: string; skip: number; take: number }[] = [];
  let skip = (query.page - 1) * query.limit;
  let need = Math.max(0, Math.min(query.limit, total - skip));
  for (const day of [...perDay.keys()].sort().reverse()) {
    if (!need) break;
    const count = perDay.get(day)!;
    if (skip >= count) {
      skip -= count;
      continue;
    }
    const take = Math.min(need, count - skip);
    plan.push({ day, skip, take });
    need -= take;
    skip = 0;
  }

  const rows = tag
    ? plannedRows(
        plan,
        (day, count) => {
          const { start, end } = wibRange(day, day);
          return newestTagLinks(workspaceId, tag, start, end, count, store);
        },
        async (links) => rowsOf((await batchGet(store, links.map((link) => keys.dispatch(link.dispatchId)))).map(toDispatch)),
      )
    : plannedRows(
        plan,
        (day, count) => newestSentOfDay(workspaceId, day, count, store),
        (entries) => Promise.resolve(entries.flatMap((entry) => (entry.row ? [entry.row] : []))),
      );
  return { rows, total };
}

/**
 * The planned days' rows, newest first: each day's entries (the workspace's sent entries, or a
 * tag's links) read only as far as the page needs, in chunks loaded as rows.
 */
async function* plannedRows<Entry>(
  plan: { day: string; skip: number; take: number }[],
  newestOfDay: (day: string, count: number) => AsyncIterable<Entry[]>,
  load: (entries: Entry[]) => Promise<DispatchRow[]>,
): AsyncIterable<DispatchRow[]> {
  for (const { day, skip: passOver, take } of plan) {
    let seen = 0;
    let taken = 0;
    for await (const entries of newestOfDay(day, passOver + take)) {
      const wanted = entries.slice(Math.max(0, passOver - seen), Math.max(0, passOver - seen) + (take - taken));
      seen += entries.length;
      for (let i = 0; i < wanted.length; i += CHUNK) yield load(wanted.slice(i, i + CHUNK));
      taken += wanted.length;
      if (taken >= take) break;
    }
  }
}

async function workspaceCountsByDay(workspaceId: string, query: ReportPeriod, store: Store): Promise<Map<string, number>> {
  const rows = await dayRollups(workspaceId, query.startDate, query.endDate, store);
  return new Map(rows.filter((row) => row.dispatchCount > 0).map((row) => [row.day, row.dispatchCount]));
}

async function tagCountsByDay(workspaceId: string, tag: string, query: ReportPeriod, store: Store): Promise<Map<string, number>> {
  const rows = await tagRollups(workspaceId, tag, query.startDate, query.endDate, store);
  const perDay = new Map<string, number>();
  for (const row of rows) perDay.set(row.day, (perDay.get(row.day) ?? 0) + row.dispatchCount);
  for (const [day, count] of perDay) if (count <= 0) perDay.delete(day);
  return perDay;
}

/** Several tags: read their entries in the period, then union (ANY) or intersect (ALL). */
async function mergedPage(workspaceId: string, query: DispatchListQuery, tags: string[], store: Store): Promise<{ rows: AsyncIterable<DispatchRow[]>; total: number }> {
  const { start, end } = wibRange(query.startDate, query.endDate);
  const perTag = await Promise.all(tags.map((tag) => tagLinks(workspaceId, tag, start, end, store)));
  const seen = new Map<string, { order: string; tags: number }>();
  for (const entries of perTag) {
    for (const entry of entries) {
      const id = entry.dispatchId;
      const current = seen.get(id) ?? { order: entry.order, tags: 0 };
      current.tags += 1;
      seen.set(id, current);
    }
  }
  const match = 'match' in query.selector ? query.selector.match : 'ANY';
  const ordered = [...seen]
    .filter(([, entry]) => match === 'ANY' || entry.tags === tags.length)
    .sort(([, a], [, b]) => (a.order < b.order ? 1 : a.order > b.order ? -1 : 0))
    .map(([id]) => id);
  const pageIds = ordered.slice((query.page - 1) * query.limit, query.page * query.limit);

  async function* rows(): AsyncIterable<DispatchRow[]> {
    for (let i = 0; i < pageIds.length; i += CHUNK) yield rowsOf((await batchGet(store, pageIds.slice(i, i + CHUNK).map((id) => keys.dispatch(id)))).map(toDispatch));
  }
  return { rows: rows(), total: ordered.length };
}
