import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { lastPerKey, type BatchWriteRequest } from '../../shared/batch-write';
import { mapWithConcurrency } from '../../shared/concurrency';
import type { Store } from '../../shared/store';
import { keys } from '../../shared/table';
import { isConditionFailed, transactWriteThroughConflicts, writeIfAllowed, writeOne, type Write } from '../../shared/writes';
import { reportProjectionSettings } from '../../shared/stream-consumer-settings';
import { wibRange } from '../time/wib';
import { countedDispatchesOfDay } from './dispatch-list';
import { addDeltas, dayRollups, dayTagRollups, rollupDeltas, rollupOfDelta, rollupWrite, sumDeltas, tagLinks, tagLinkWrites, tagRollups, type ReportedDispatch, type RollupDelta } from './report-items';

/**
 * A WIB day's report items held against the dispatches they count, and put right: for when the
 * report projection (decision 113) counted some twice or missed some, as a rollback across it, a
 * backlog past the stream's 24 hours or a change it had to be fixed to read can leave them. The
 * dispatches' report entries (gsi4, decision 104) are the truth; the rollups and tag links follow.
 */

/** One tag's link of one dispatch. */
export type TagLinkOf = Pick<ReportedDispatch, 'dispatchId' | 'workspaceId' | 'createdAt'> & { trackingTag: string };

/** How a day's report items differ from its dispatches. */
export interface DayReportCheck {
  workspaceId: string;
  day: string;
  /** The day's dispatches that count as sent. */
  counted: number;
  /** What each rollup that differs lacks (negative: holds too much), added to its first shard to put it right. */
  corrections: RollupDelta[];
  /** The tag links a counted dispatch lacks, and those of a dispatch that does not count. */
  links: { missing: TagLinkOf[]; extra: TagLinkOf[] };
}

/** A day can carry thousands of tags: their reads go a few at a time, not all at once into DynamoDB's throttling. */
export const REPORT_CHECK_PARALLEL_TAGS = 16;

/**
 * Reads the day's counted dispatches and its report items (every shard of each rollup, both shapes
 * of tag link) and says how the items differ. Read while the day still changes, the two can
 * disagree by what the projection has not written yet (up to its 5 s window): check a day that is
 * over, and again after a rebuild.
 */
export async function checkDayReports(workspaceId: string, day: string, store: Store): Promise<DayReportCheck> {
  return (await readDay(workspaceId, day, store)).check;
}

/** One read of a day: how its items differ, and, by rollup, the dispatches that rollup's sums should be of. */
interface DayRead {
  check: DayReportCheck;
  /** Each rollup's counted dispatches (their ids, sorted, as one string), by `rollupOfDelta`. */
  countedIn: Record<string, string>;
}

async function readDay(workspaceId: string, day: string, store: Store): Promise<DayRead> {
  const counted = (await countedDispatchesOfDay(workspaceId, day, store)).map((entry) => ({ ...entry, workspaceId }));
  const expected = sumDeltas(counted.flatMap((dispatch) => rollupDeltas(dispatch, 1)));
  const idsIn: Record<string, string[]> = {};
  for (const dispatch of counted) for (const delta of rollupDeltas(dispatch, 1)) (idsIn[rollupOfDelta(delta)] ??= []).push(dispatch.dispatchId);
  const countedIn = Object.fromEntries(Object.entries(idsIn).map(([rollup, ids]) => [rollup, JSON.stringify(ids.sort())]));

  const [days, dayTags] = await Promise.all([dayRollups(workspaceId, day, day, store), dayTagRollups(workspaceId, day, undefined, store)]);
  // Every tag the day has, by its dispatches or by its rollups: each tag's own rollups and links are in its partition.
  const tags = [...new Set([...counted.flatMap((dispatch) => dispatch.trackingTags), ...dayTags.map((rollup) => rollup.trackingTag)])].sort();
  const { start, end } = wibRange(day, day);
  const perTag = await mapWithConcurrency(tags, REPORT_CHECK_PARALLEL_TAGS, async (tag) => {
    const [rollups, links] = await Promise.all([tagRollups(workspaceId, tag, day, day, store), tagLinks(workspaceId, tag, start, end, store)]);
    return { tag, rollups, links };
  });
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
  const missing = counted.flatMap(({ dispatchId, createdAt, trackingTags }) =>
    trackingTags.filter((tag) => !linked.has(`${tag}\u0000${dispatchId}`)).map((trackingTag): TagLinkOf => ({ workspaceId, dispatchId, createdAt, trackingTag })),
  );
  const extra = perTag.flatMap(({ tag, links }) =>
    links
      .filter((link) => !countedIds.has(link.dispatchId))
      // A link's order is `<createdAt>#<dispatchId>`, in either shape.
      .map((link): TagLinkOf => ({ workspaceId, dispatchId: link.dispatchId, createdAt: link.order.slice(0, link.order.indexOf('#')), trackingTag: tag })),
  );
  return { check: { workspaceId, day, counted: counted.length, corrections, links: { missing, extra } }, countedIn };
}

/**
 * How long a rebuild waits between its two reads of the day: a change the projection was handed
 * when the first read ran is written by the end of its window, or of the next one if that
 * invocation failed once (the window, and the batching before it, twice).
 */
export const REBUILD_SETTLE_MS = 2 * (reportProjectionSettings.tumblingWindowSeconds + reportProjectionSettings.maxBatchingWindowSeconds) * 1000;
/** How long a rebuild holds its day: far beyond the reads of a day of thousands of tags, and the time a stopped run blocks the next. */
export const REBUILD_LEASE_MS = 15 * 60_000;

/** Another rebuild of the same workspace's day holds it, until `until` at the latest. */
export class RebuildRunningError extends Error {
  override name = 'RebuildRunningError';

  constructor(readonly until: string) {
    super(`Another rebuild of this day is running (held until ${until} at the latest)`);
  }
}

/**
 * This run held the day past its time and another run took it over, so it stopped writing: the
 * other reads the day afresh and puts right what is left. `written` of `total` writes were made
 * before (each while the day was still this run's).
 */
export class RebuildOvertakenError extends Error {
  override name = 'RebuildOvertakenError';

  constructor(
    readonly written: number,
    readonly total: number,
  ) {
    super(`The rebuild held the day past its ${REBUILD_LEASE_MS / 60_000} minutes and another run took it over: it stopped after ${written} of ${total} writes`);
  }
}

/** What a rebuild put right, and what moved between its two reads (left for the next check). */
export interface DayReportRebuild {
  written: DayReportCheck;
  moving: { rollups: number; links: number };
}

/**
 * Puts a day's reports right by its dispatches (decisions 117, 180, 235). The day is read twice,
 * `settle` apart: what differed only in one read is a change the projection had not written yet
 * (a late send or failure), which it will write itself, so only what differs the same way in both,
 * with the same dispatches counted, is written: each correction one `ADD` to its rollup's first shard, and the links, in
 * transactions held to the run's hold of the day. One run at a time per day: two would both add the
 * same difference.
 */
export async function rebuildDayReports(
  workspaceId: string,
  day: string,
  store: Store,
  options: { now: Date; settle?: () => Promise<void> },
): Promise<DayReportRebuild> {
  const lease = keys.reportRebuild(workspaceId, day);
  const until = new Date(options.now.getTime() + REBUILD_LEASE_MS).toISOString();
  try {
    await writeOne(store, {
      Put: {
        Item: { ...lease, entity: 'reportRebuild', until, ttl: Math.ceil(Date.parse(until) / 1000) },
        // A run that was stopped leaves its hold behind: past `until` it is taken over.
        ConditionExpression: 'attribute_not_exists(pk) OR #until < :now',
        ExpressionAttributeNames: { '#until': 'until' },
        ExpressionAttributeValues: { ':now': options.now.toISOString() },
      },
    });
  } catch (error) {
    if (!isConditionFailed(error)) throw error;
    const held = await store.db.send(new GetCommand({ TableName: store.tableName, Key: lease, ConsistentRead: true }));
    throw new RebuildRunningError(typeof held.Item?.until === 'string' ? held.Item.until : until);
  }
  try {
    const first = await readDay(workspaceId, day, store);
    const { corrections, links } = first.check;
    if (!corrections.length && !links.missing.length && !links.extra.length) return { written: first.check, moving: { rollups: 0, links: 0 } };
    await (options.settle ?? (() => new Promise((resolve) => setTimeout(resolve, REBUILD_SETTLE_MS))))();
    const second = await readDay(workspaceId, day, store);
    const written = steadyPart(first, second);
    await writeWhileHeld(store, lease, until, [
      ...written.corrections.map((correction) => rollupWrite(correction, 0)),
      ...distinctLinkWrites([...written.links.missing.flatMap((link) => tagLinkWrites(asDispatch(link), 1)), ...written.links.extra.flatMap((link) => tagLinkWrites(asDispatch(link), -1))]),
    ]);
    const linksOf = (check: DayReportCheck) => check.links.missing.length + check.links.extra.length;
    return { written, moving: { rollups: second.check.corrections.length - written.corrections.length, links: linksOf(second.check) - linksOf(written) } };
  } finally {
    // Only its own hold: a run that outlived it may find another run's there.
    await writeIfAllowed(store, { Delete: { Key: lease, ConditionExpression: '#until = :until', ExpressionAttributeNames: { '#until': 'until' }, ExpressionAttributeValues: { ':until': until } } });
  }
}

/** DynamoDB's limit on one transaction's writes, one of them the hold's check. */
const HELD_WRITES_PER_TRANSACTION = 99;

/**
 * Writes a rebuild's corrections, each transaction held to the run's hold of the day. A run can
 * outlive its hold (a laptop closed between its reads and its writes): once another run has taken
 * the day over and read it, what this one writes would be put right twice (its ADDs counted twice).
 */
async function writeWhileHeld(store: Store, lease: { pk: string; sk: string }, until: string, writes: Write[]): Promise<void> {
  const held: Write = { ConditionCheck: { Key: lease, ConditionExpression: '#until = :until', ExpressionAttributeNames: { '#until': 'until' }, ExpressionAttributeValues: { ':until': until } } };
  for (let from = 0; from < writes.length; from += HELD_WRITES_PER_TRANSACTION) {
    const result = await transactWriteThroughConflicts(store, { held, writes: writes.slice(from, from + HELD_WRITES_PER_TRANSACTION) });
    if (result.committed) continue;
    if (result.refused.held) throw new RebuildOvertakenError(from, writes.length);
    throw new Error(`A rebuild's writes were refused: ${JSON.stringify(result.refused)}`);
  }
}

/** A link found in both its shapes is deleted once: a transaction refuses two writes of one item. */
const distinctLinkWrites = (requests: BatchWriteRequest[]): Write[] => lastPerKey(requests).map((request) => ('put' in request ? { Put: { Item: request.put } } : { Delete: { Key: request.delete } }));

/**
 * What `second` found that `first` found too, the same: a difference the projection is not about to
 * write away. A rollup's correction also needs the same counted dispatches in both reads: a sum
 * found the same can be two dispatches' late changes, one written during the wait and one not yet
 * (decision 235). A link names its dispatch already.
 */
function steadyPart(first: DayRead, second: DayRead): DayReportCheck {
  const inFirst = (found: unknown[]) => new Set(found.map((item) => JSON.stringify(item)));
  const [corrections, missing, extra] = [inFirst(first.check.corrections), inFirst(first.check.links.missing), inFirst(first.check.links.extra)];
  const sameDispatches = (correction: RollupDelta) => first.countedIn[rollupOfDelta(correction)] === second.countedIn[rollupOfDelta(correction)];
  const { links } = second.check;
  return {
    ...second.check,
    corrections: second.check.corrections.filter((correction) => corrections.has(JSON.stringify(correction)) && sameDispatches(correction)),
    links: { missing: links.missing.filter((link) => missing.has(JSON.stringify(link))), extra: links.extra.filter((link) => extra.has(JSON.stringify(link))) },
  };
}

const asDispatch = ({ trackingTag, ...link }: TagLinkOf) => ({ ...link, trackingTags: [trackingTag] });

const negate = (delta: RollupDelta): RollupDelta =>
  delta.kind === 'tag' ? { ...delta, dispatchCount: -delta.dispatchCount, credits: -delta.credits, amountRupiah: -delta.amountRupiah } : { ...delta, dispatchCount: -delta.dispatchCount };

/** What `stored` lacks of `expected` (either may be absent), or undefined when they agree; a tag rollup's correction keeps the dispatches' template name. */
function difference(expected: RollupDelta | undefined, stored: RollupDelta | undefined): RollupDelta | undefined {
  const lacking = expected && stored ? addDeltas(expected, negate(stored)) : (expected ?? negate(stored!));
  const agrees = lacking.dispatchCount === 0 && (lacking.kind !== 'tag' || (lacking.credits === 0 && lacking.amountRupiah === 0));
  return agrees ? undefined : lacking;
}
