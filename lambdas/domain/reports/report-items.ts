import { rupiah } from '../../shared/rupiah';
import * as z from '../../shared/zod';
import { mapPages, mergeNewestFirst } from '../../shared/merge-newest-first';
import { queryAll, queryNewestFirst } from '../../shared/query-all';
import type { Store } from '../../shared/store';
import { parseItem } from '../../shared/stored-item';
import type { BatchWriteRequest } from '../../shared/batch-write';
import { accessPatterns, keyFits, keys, tableDefinition } from '../../shared/table';
import type { Write } from '../../shared/writes';
import type { Dispatch } from '../messages/dispatch';
import { wibDay } from '../time/wib';

/**
 * The report items of a dispatch that counts as sent: its tag links, the per tag·day·template
 * rollups, the per day·tag rollups and the per-day workspace count. They are written from the
 * stream record of the move that made it count, or stop counting (decision 113,
 * report-projection.ts): each link as it comes, the rollups summed over a window of the stream. The
 * report readers read them back through this module only, which sums each rollup's shards
 * (lambdas/shared/table.ts, `ROLLUP_SHARDS`) into one row.
 */

/** What a dispatch's report items are made of: the fields of the dispatch they count. */
export type ReportedDispatch = Pick<Dispatch, 'dispatchId' | 'workspaceId' | 'createdAt' | 'trackingTags' | 'templateId' | 'templateName' | 'creditCost' | 'amountRupiah'>;

/**
 * A dispatch's tag links when it starts counting (`sign` 1), or the deletes that take them back
 * (−1). A link lives in its tag's partition (decision 102); taking it back also deletes the link a
 * dispatch counted before that decision kept under itself, since either may be the one it has.
 */
export function tagLinkWrites(dispatch: Pick<ReportedDispatch, 'dispatchId' | 'workspaceId' | 'createdAt' | 'trackingTags'>, sign: 1 | -1): BatchWriteRequest[] {
  return dispatch.trackingTags.flatMap((tag): BatchWriteRequest[] => {
    const key = keys.tagLink(dispatch.workspaceId, tag, dispatch.createdAt, dispatch.dispatchId);
    const underDispatch = keys.tagLinkUnderDispatch(dispatch.dispatchId, tag);
    // The older shape's key of a tag 256 characters long is past DynamoDB's limit: no such link was ever written.
    if (sign === -1) return [{ delete: key }, ...(keyFits(underDispatch) ? [{ delete: underDispatch }] : [])];
    return [{ put: { ...key, entity: 'tagLink', dispatchId: dispatch.dispatchId } }];
  });
}

/** One rollup's share of a change: which rollup, and what it adds (negative: takes back). */
export type RollupDelta =
  | { kind: 'day'; workspaceId: string; day: string; dispatchCount: number }
  | { kind: 'dayTag'; workspaceId: string; day: string; tag: string; dispatchCount: number }
  | { kind: 'tag'; workspaceId: string; day: string; tag: string; templateId: string; templateName: string; dispatchCount: number; credits: number; amountRupiah: number };

/** The rollups a dispatch adds to when it starts counting (`sign` 1), or takes back from (−1). */
export function rollupDeltas(dispatch: ReportedDispatch, sign: 1 | -1): RollupDelta[] {
  const { workspaceId } = dispatch;
  const day = wibDay(new Date(dispatch.createdAt));
  return [
    { kind: 'day', workspaceId, day, dispatchCount: sign },
    ...dispatch.trackingTags.flatMap((tag): RollupDelta[] => [
      { kind: 'tag', workspaceId, day, tag, templateId: dispatch.templateId, templateName: dispatch.templateName, dispatchCount: sign, credits: sign * dispatch.creditCost, amountRupiah: sign * dispatch.amountRupiah },
      { kind: 'dayTag', workspaceId, day, tag, dispatchCount: sign },
    ]),
  ];
}

/** The rollup a delta adds to, as a string: deltas of one rollup are summed under it. */
export const rollupOfDelta = (delta: RollupDelta): string =>
  JSON.stringify(delta.kind === 'day' ? [delta.kind, delta.workspaceId, delta.day] : delta.kind === 'dayTag' ? [delta.kind, delta.workspaceId, delta.day, delta.tag] : [delta.kind, delta.workspaceId, delta.day, delta.tag, delta.templateId]);

/** Two deltas of the same rollup as one. */
export function addDeltas(sum: RollupDelta, delta: RollupDelta): RollupDelta {
  if (sum.kind === 'tag' && delta.kind === 'tag') return { ...sum, dispatchCount: sum.dispatchCount + delta.dispatchCount, credits: sum.credits + delta.credits, amountRupiah: rupiah(sum.amountRupiah + delta.amountRupiah) };
  return { ...sum, dispatchCount: sum.dispatchCount + delta.dispatchCount };
}

/** `deltas` added into `sums` (by `rollupOfDelta`), as a new record: `sums` is left as it was. */
export function sumDeltas(deltas: readonly RollupDelta[], sums: Readonly<Record<string, RollupDelta>> = {}): Record<string, RollupDelta> {
  const summed = { ...sums };
  for (const delta of deltas) {
    const rollup = rollupOfDelta(delta);
    const sum = summed[rollup];
    summed[rollup] = sum ? addDeltas(sum, delta) : delta;
  }
  return summed;
}

/** A delta written to its rollup's `shard`: one `ADD` of the sums, so deltas from anywhere add up. */
export function rollupWrite(delta: RollupDelta, shard: number): Write {
  switch (delta.kind) {
    case 'day':
      return {
        Update: {
          Key: keys.dayRollup(delta.workspaceId, delta.day, shard),
          UpdateExpression: 'SET entity = :entity ADD dispatchCount :count',
          ExpressionAttributeValues: { ':entity': 'dayRollup', ':count': delta.dispatchCount },
        },
      };
    case 'dayTag':
      return {
        Update: {
          Key: keys.dayTagRollup(delta.workspaceId, delta.day, delta.tag, shard),
          UpdateExpression: 'SET entity = :entity, trackingTag = :tag ADD dispatchCount :count',
          ExpressionAttributeValues: { ':entity': 'dayTagRollup', ':tag': delta.tag, ':count': delta.dispatchCount },
        },
      };
    case 'tag':
      return {
        Update: {
          Key: keys.tagRollup(delta.workspaceId, delta.tag, delta.day, delta.templateId, shard),
          UpdateExpression: 'SET entity = :entity, templateName = :name, trackingTag = :tag, #day = :day, templateId = :tpl ADD dispatchCount :count, credits :credits, amountRupiah :amount',
          ExpressionAttributeNames: { '#day': 'day' },
          ExpressionAttributeValues: {
            ':entity': 'tagRollup',
            ':name': delta.templateName,
            ':tag': delta.tag,
            ':day': delta.day,
            ':tpl': delta.templateId,
            ':count': delta.dispatchCount,
            ':credits': delta.credits,
            ':amount': delta.amountRupiah,
          },
        },
      };
  }
}

const tagRollupSchema = z.object({ templateId: z.string(), templateName: z.string(), day: z.string(), dispatchCount: z.number(), credits: z.number(), amountRupiah: z.number() });
export type TagRollup = z.output<typeof tagRollupSchema>;

/** A tag's rollups (one per WIB day and template, its shards summed) of WIB days `from`..`to`. */
export async function tagRollups(workspaceId: string, tag: string, from: string, to: string, store: Store): Promise<TagRollup[]> {
  const items = await queryAll(store, accessPatterns.rollupsOfTag(workspaceId, tag, from, to));
  const shards = items.map((item) => parseItem(tagRollupSchema, item, 'tag rollup'));
  return sumShards(shards, (rollup) => `${rollup.day}#${rollup.templateId}`, (sum, shard) => ({
    ...sum,
    dispatchCount: sum.dispatchCount + shard.dispatchCount,
    credits: sum.credits + shard.credits,
    amountRupiah: rupiah(sum.amountRupiah + shard.amountRupiah),
  }));
}

/** The day rollup stores its day only in its sort key (keys.dayRollup): the day, or the day and its shard. */
const dayRollupSchema = z.pipe(z.object({ sk: z.string(), dispatchCount: z.number() }), z.transform(({ sk, dispatchCount }) => ({ day: sk.slice(0, 'YYYY-MM-DD'.length), dispatchCount })));
export type DayRollup = z.output<typeof dayRollupSchema>;

/** The workspace's per-day sent counts of WIB days `from`..`to`, one per day. */
export async function dayRollups(workspaceId: string, from: string, to: string, store: Store): Promise<DayRollup[]> {
  const items = await queryAll(store, accessPatterns.daysOfWorkspace(workspaceId, from, to));
  const shards = items.map((item) => parseItem(dayRollupSchema, item, 'day rollup'));
  return sumShards(shards, (rollup) => rollup.day, (sum, shard) => ({ ...sum, dispatchCount: sum.dispatchCount + shard.dispatchCount }));
}

const dayTagRollupSchema = z.object({ trackingTag: z.string(), dispatchCount: z.number() });
export type DayTagRollup = z.output<typeof dayTagRollupSchema>;

/** A WIB day's per-tag counts, one per tag, optionally of the tags starting with `prefix`. */
export async function dayTagRollups(workspaceId: string, day: string, prefix: string | undefined, store: Store): Promise<DayTagRollup[]> {
  const items = await queryAll(store, accessPatterns.tagsOfDay(workspaceId, day, prefix));
  // A shard's key is its tag and a suffix, so a prefix can match a shorter tag's shard ("promo" as "promo#3 " for "promo#").
  const shards = items.map((item) => parseItem(dayTagRollupSchema, item, 'day tag rollup')).filter((rollup) => !prefix || rollup.trackingTag.startsWith(prefix));
  return sumShards(shards, (rollup) => rollup.trackingTag, (sum, shard) => ({ ...sum, dispatchCount: sum.dispatchCount + shard.dispatchCount }));
}

/** One row per rollup, its shards' counts added up, in the order rollups are first read. */
function sumShards<Row>(shards: Row[], rollupOf: (row: Row) => string, add: (sum: Row, shard: Row) => Row): Row[] {
  const sums = new Map<string, Row>();
  for (const shard of shards) {
    const rollup = rollupOf(shard);
    const sum = sums.get(rollup);
    sums.set(rollup, sum ? add(sum, shard) : shard);
  }
  return [...sums.values()];
}

/** A tag link as the report list reads it: the dispatch and its place in time order (`<createdAt>#<dispatchId>`). */
export interface TagLinkEntry {
  dispatchId: string;
  order: string;
}

/**
 * Where each shape of link keeps its order: a link in its tag's partition in the table's sort key;
 * one written before decision 102 in its gsi2 sort key. Both read the same. A function, not a
 * constant: a module-level reference to `accessPatterns` would keep it in every bundle that writes
 * report items (the report projection) though only the report list reads links.
 */
const linkSources = () =>
  [
    { pattern: accessPatterns.linksOfTag, order: tableDefinition.sortKey },
    { pattern: accessPatterns.indexedLinksOfTag, order: tableDefinition.indexes.gsi2.sortKey },
  ] as const;

const tagLinkEntrySchema = z.object({ dispatchId: z.string(), order: z.string() });
const linkEntryOf = (order: string) => (item: Record<string, unknown>): TagLinkEntry => parseItem(tagLinkEntrySchema, { ...item, order: item[order] }, 'tag link');

/** A tag's links created in [start, end] (instants), both shapes, in no particular order. */
export async function tagLinks(workspaceId: string, tag: string, start: string, end: string, store: Store): Promise<TagLinkEntry[]> {
  const read = await Promise.all(linkSources().map(async ({ pattern, order }) => (await queryAll(store, { ...pattern(workspaceId, tag, start, end), ProjectionExpression: `dispatchId, ${order}` })).map(linkEntryOf(order))));
  return read.flat();
}

/** A tag's links created in [start, end], newest first, in pages, both shapes merged, until `count` have been read. */
export function newestTagLinks(workspaceId: string, tag: string, start: string, end: string, count: number, store: Store): AsyncIterable<TagLinkEntry[]> {
  const sources = linkSources().map(({ pattern, order }) => mapPages(queryNewestFirst(store, { ...pattern(workspaceId, tag, start, end), ProjectionExpression: `dispatchId, ${order}` }, count), linkEntryOf(order)));
  return mergeNewestFirst(sources, (link) => link.order);
}
