import * as z from '../../shared/zod';
import { queryAll } from '../../shared/query-all';
import type { Store } from '../../shared/store';
import { parseItem } from '../../shared/stored-item';
import { accessPatterns, indexKeys, keys, rollupShardOf } from '../../shared/table';
import type { Write } from '../../shared/writes';
import type { Dispatch } from '../messages/dispatch';
import { wibDay } from '../time/wib';

/**
 * The report items a dispatch writes when it first counts as sent (and takes back if it stops
 * counting): its tag links, the per tag·day·template rollups, the per day·tag rollups and the
 * per-day workspace count. The report readers read them back through this module only, which
 * sums each rollup's shards (lambdas/shared/table.ts, `ROLLUP_SHARDS`) into one row.
 */

/**
 * Tag links and rollups of a dispatch that now counts as sent (`sign` 1), or no longer does
 * (`sign` −1: its links deleted and every count taken back).
 */
export function reportWrites(dispatch: Dispatch, sign: 1 | -1): Write[] {
  const day = wibDay(new Date(dispatch.createdAt));
  // A dispatch keeps its shard, so a count taken back is taken from where it was added.
  const shard = rollupShardOf(dispatch.dispatchId);
  const dayCount: Write = {
    Update: {
      Key: keys.dayRollup(dispatch.workspaceId, day, shard),
      UpdateExpression: 'SET entity = :entity ADD dispatchCount :one',
      ExpressionAttributeValues: { ':entity': 'dayRollup', ':one': sign },
    },
  };
  return [dayCount, ...dispatch.trackingTags.flatMap((tag) => [tagLinkWrite(dispatch, tag, sign), tagRollupWrite(dispatch, tag, day, shard, sign), dayTagRollupWrite(dispatch, tag, day, shard, sign)])];
}

function tagLinkWrite(dispatch: Dispatch, tag: string, sign: 1 | -1): Write {
  if (sign === -1) return { Delete: { Key: keys.tagLink(dispatch.dispatchId, tag) } };
  return {
    Put: {
      Item: {
        ...keys.tagLink(dispatch.dispatchId, tag),
        ...indexKeys.tagLink(dispatch.workspaceId, tag, dispatch.createdAt, dispatch.dispatchId),
        entity: 'tagLink',
        workspaceId: dispatch.workspaceId,
        dispatchId: dispatch.dispatchId,
        trackingTag: tag,
        createdAt: dispatch.createdAt,
      },
    },
  };
}

const tagRollupWrite = (dispatch: Dispatch, tag: string, day: string, shard: number, sign: 1 | -1): Write => ({
  Update: {
    Key: keys.tagRollup(dispatch.workspaceId, tag, day, dispatch.templateId, shard),
    UpdateExpression: 'SET entity = :entity, templateName = :name, trackingTag = :tag, #day = :day, templateId = :tpl ADD dispatchCount :one, credits :credits, amountRupiah :amount',
    ExpressionAttributeNames: { '#day': 'day' },
    ExpressionAttributeValues: {
      ':entity': 'tagRollup',
      ':name': dispatch.templateName,
      ':tag': tag,
      ':day': day,
      ':tpl': dispatch.templateId,
      ':one': sign,
      ':credits': sign * dispatch.creditCost,
      ':amount': sign * dispatch.amountRupiah,
    },
  },
});

const dayTagRollupWrite = (dispatch: Dispatch, tag: string, day: string, shard: number, sign: 1 | -1): Write => ({
  Update: {
    Key: keys.dayTagRollup(dispatch.workspaceId, day, tag, shard),
    UpdateExpression: 'SET entity = :entity, trackingTag = :tag ADD dispatchCount :one',
    ExpressionAttributeValues: { ':entity': 'dayTagRollup', ':tag': tag, ':one': sign },
  },
});

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
    amountRupiah: sum.amountRupiah + shard.amountRupiah,
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

/** A tag link as the merged list reads it: the dispatch and its place in time order (its index sort key). */
const tagLinkEntrySchema = z.pipe(z.object({ dispatchId: z.string(), gsi2sk: z.string() }), z.transform(({ dispatchId, gsi2sk }) => ({ dispatchId, order: gsi2sk })));
export type TagLinkEntry = z.output<typeof tagLinkEntrySchema>;

/** A tag's links created in [start, end] (instants), in index order. */
export async function tagLinks(workspaceId: string, tag: string, start: string, end: string, store: Store): Promise<TagLinkEntry[]> {
  const items = await queryAll(store, { ...accessPatterns.linksOfTag(workspaceId, tag, start, end), ProjectionExpression: 'dispatchId, gsi2sk' });
  return items.map((item) => parseItem(tagLinkEntrySchema, item, 'tag link'));
}

/** A tag link's dispatch id, as a page of links on the index reads it. */
export const dispatchIdOfLink = (item: Record<string, unknown>): string => parseItem(z.object({ dispatchId: z.string() }), item, 'tag link').dispatchId;
