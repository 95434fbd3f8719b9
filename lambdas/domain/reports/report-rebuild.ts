import { batchWrite, type BatchWriteRequest } from '../../shared/batch-write';
import type { Store } from '../../shared/store';
import { writeOne } from '../../shared/writes';
import { wibRange } from '../time/wib';
import { countedDispatchesOfDay } from './dispatch-list';
import { addDeltas, dayRollups, dayTagRollups, rollupDeltas, rollupWrite, sumDeltas, tagLinks, tagLinkWrites, tagRollups, type RollupDelta } from './report-items';

/**
 * A WIB day's report items held against the dispatches they count, and put right: for when the
 * report projection (decision 113) counted some twice or missed some, as a rollback across it, a
 * backlog past the stream's 24 hours or a change it had to be fixed to read can leave them. The
 * dispatches' report entries (gsi4, decision 104) are the truth; the rollups and tag links follow.
 */

/** How a day's report items differ from its dispatches. */
export interface DayReportCheck {
  workspaceId: string;
  day: string;
  /** The day's dispatches that count as sent. */
  counted: number;
  /** What each rollup that differs lacks (negative: holds too much), added to its first shard to put it right. */
  corrections: RollupDelta[];
  /** How many tag links a counted dispatch lacks, and how many are of a dispatch that does not count. */
  links: { missing: number; extra: number };
  /** The puts of the missing links and the deletes (either shape) of the others. */
  linkWrites: BatchWriteRequest[];
}

/**
 * Reads the day's counted dispatches and its report items (every shard of each rollup, both shapes
 * of tag link) and says how the items differ. Read while the day still changes, the two can
 * disagree by what the projection has not written yet (up to its 5 s window): check a day that is
 * over, and again after a rebuild.
 */
export async function checkDayReports(workspaceId: string, day: string, store: Store): Promise<DayReportCheck> {
  const counted = (await countedDispatchesOfDay(workspaceId, day, store)).map((entry) => ({ ...entry, workspaceId }));
  const expected = sumDeltas(counted.flatMap((dispatch) => rollupDeltas(dispatch, 1)));

  const [days, dayTags] = await Promise.all([dayRollups(workspaceId, day, day, store), dayTagRollups(workspaceId, day, undefined, store)]);
  // Every tag the day has, by its dispatches or by its rollups: each tag's own rollups and links are in its partition.
  const tags = [...new Set([...counted.flatMap((dispatch) => dispatch.trackingTags), ...dayTags.map((rollup) => rollup.trackingTag)])].sort();
  const { start, end } = wibRange(day, day);
  const perTag = await Promise.all(
    tags.map(async (tag) => {
      const [rollups, links] = await Promise.all([tagRollups(workspaceId, tag, day, day, store), tagLinks(workspaceId, tag, start, end, store)]);
      return { tag, rollups, links };
    }),
  );
  const stored = sumDeltas([
    ...days.map((rollup): RollupDelta => ({ kind: 'day', workspaceId, day, dispatchCount: rollup.dispatchCount })),
    ...dayTags.map((rollup): RollupDelta => ({ kind: 'dayTag', workspaceId, day, tag: rollup.trackingTag, dispatchCount: rollup.dispatchCount })),
    ...perTag.flatMap(({ tag, rollups }) => rollups.map((rollup): RollupDelta => ({ kind: 'tag', workspaceId, tag, ...rollup }))),
  ]);

  const corrections = [...new Set([...Object.keys(expected), ...Object.keys(stored)])].flatMap((rollup) => {
    const lacking = difference(expected[rollup], stored[rollup]);
    return lacking ? [lacking] : [];
  });

  const linked = new Set(perTag.flatMap(({ tag, links }) => links.map((link) => `${tag}\u0000${link.dispatchId}`)));
  const countedIds = new Set(counted.map((dispatch) => dispatch.dispatchId));
  const missing = counted.flatMap((dispatch) => dispatch.trackingTags.filter((tag) => !linked.has(`${tag}\u0000${dispatch.dispatchId}`)).map((tag) => ({ ...dispatch, trackingTags: [tag] })));
  const extra = perTag.flatMap(({ tag, links }) =>
    links
      .filter((link) => !countedIds.has(link.dispatchId))
      // A link's order is `<createdAt>#<dispatchId>`, in either shape.
      .map((link) => ({ workspaceId, dispatchId: link.dispatchId, createdAt: link.order.slice(0, link.order.indexOf('#')), trackingTags: [tag] })),
  );
  const linkWrites = [...missing.flatMap((link) => tagLinkWrites(link, 1)), ...extra.flatMap((link) => tagLinkWrites(link, -1))];
  return { workspaceId, day, counted: counted.length, corrections, links: { missing: missing.length, extra: extra.length }, linkWrites };
}

/** Puts right what `check` found: each correction one `ADD` to its rollup's first shard, the links in batches. */
export async function rebuildDayReports(check: DayReportCheck, store: Store): Promise<void> {
  for (const correction of check.corrections) await writeOne(store, rollupWrite(correction, 0));
  await batchWrite(store, check.linkWrites);
}

const negate = (delta: RollupDelta): RollupDelta =>
  delta.kind === 'tag' ? { ...delta, dispatchCount: -delta.dispatchCount, credits: -delta.credits, amountRupiah: -delta.amountRupiah } : { ...delta, dispatchCount: -delta.dispatchCount };

/** What `stored` lacks of `expected` (either may be absent), or undefined when they agree; a tag rollup's correction keeps the dispatches' template name. */
function difference(expected: RollupDelta | undefined, stored: RollupDelta | undefined): RollupDelta | undefined {
  const lacking = expected && stored ? addDeltas(expected, negate(stored)) : (expected ?? negate(stored!));
  const agrees = lacking.dispatchCount === 0 && (lacking.kind !== 'tag' || (lacking.credits === 0 && lacking.amountRupiah === 0));
  return agrees ? undefined : lacking;
}
