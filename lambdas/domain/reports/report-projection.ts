import * as z from '../../shared/zod';
import { batchWrite } from '../../shared/batch-write';
import { defaultStore } from '../../shared/default-store';
import type { Store } from '../../shared/store';
import { parseItem } from '../../shared/stored-item';
import { keys, rollupShardOfStreamShard } from '../../shared/table';
import { conflictPause, CONFLICT_RETRIES, transactWrite, type Write } from '../../shared/writes';
import { REPORTS_CHANGE_MADE } from '../messages/dispatch';
import { rollupDeltas, rollupWrite, sumDeltas, tagLinkWrites, type ReportedDispatch, type RollupDelta } from './report-items';

/**
 * The reports' write side (decision 113). The move that makes a dispatch count as sent, and the
 * late failure that stops it counting, name that on the dispatch (`REPORTS_CHANGE_MADE`, 1 or −1);
 * the report projection reads those changes from the table's stream. Tag links are idempotent
 * items, so it writes them as they come. Rollups are counts, which a record handed over twice would
 * count twice: so it sums them over a tumbling window of the stream, in a state Lambda keeps per
 * shard and window and hands from one invocation to the next (a failed invocation leaves it as it
 * was), and the window's last invocation writes the sums in one transaction with a marker put only
 * if absent, so a last invocation tried again writes nothing.
 */

/** A change of a dispatch's standing in the reports, from its stream record. */
export interface ReportsChange {
  dispatch: ReportedDispatch;
  sign: 1 | -1;
}

const changeSchema = z.object({
  dispatchId: z.string().check(z.minLength(1)),
  workspaceId: z.string().check(z.minLength(1)),
  createdAt: z.string(),
  trackingTags: z.array(z.string()),
  templateId: z.string(),
  templateName: z.string(),
  creditCost: z.number(),
  amountRupiah: z.number(),
  [REPORTS_CHANGE_MADE]: z.union([z.literal(1), z.literal(-1)]),
});

/** The reports change a dispatch write made, from its stream record's new image (unmarshalled); none for other writes. */
export function reportsChangeOf(newImage: Record<string, unknown>): ReportsChange | undefined {
  if (!(REPORTS_CHANGE_MADE in newImage)) return undefined;
  const { [REPORTS_CHANGE_MADE]: sign, ...dispatch } = parseItem(changeSchema, newImage, 'dispatch');
  return { dispatch, sign };
}

/** Writes the tag links of a batch's changes, in their order: a link put and taken back in one batch ends deleted. */
export async function recordTagLinks(changes: readonly ReportsChange[], store: Store = defaultStore()): Promise<void> {
  await batchWrite(
    store,
    changes.flatMap(({ dispatch, sign }) => tagLinkWrites(dispatch, sign)),
  );
}

/**
 * What a window has summed so far (Lambda keeps it as JSON between invocations): its first
 * record, which tells a window cut short from the one that goes on with the same start, and each
 * rollup's sum.
 */
export interface ReportsWindowState {
  first?: string;
  sums?: Record<string, RollupDelta>;
}

/** The state with a batch's changes added; `first` is the batch's first record, kept if the window had one. */
export function foldReportsChanges(state: ReportsWindowState, changes: readonly ReportsChange[], first: string | undefined): ReportsWindowState {
  const sums = sumDeltas(changes.flatMap(({ dispatch, sign }) => rollupDeltas(dispatch, sign)), state.sums);
  const firstRecord = state.first ?? first;
  return { ...(firstRecord ? { first: firstRecord } : {}), sums };
}

/** DynamoDB's TransactWriteItems takes 100 actions: the marker and 99 sums. */
const SUMS_PER_PART = 99;
/** A marker outlives the stream's records (24 hours), which is as long as a window can be handed over again. */
const MARKER_TTL_SECONDS = 2 * 86_400;

/** Where a window's sums come from: the stream shard, and the window's start as Lambda names it. */
export interface WindowOfShard {
  shardId: string;
  start: string;
}

const isZero = (delta: RollupDelta) => delta.dispatchCount === 0 && (delta.kind !== 'tag' || (delta.credits === 0 && delta.amountRupiah === 0));

/**
 * Writes a window's sums to their rollups, in the stream shard's rollup shard, in parts of at most
 * `SUMS_PER_PART`, in a fixed order, each with its marker: a part whose marker is there was
 * written by an earlier try and is left alone. Sums that came to nothing are not written.
 */
export async function writeWindowSums(window: WindowOfShard, state: ReportsWindowState, store: Store = defaultStore(), now = new Date()): Promise<void> {
  const sums = Object.entries(state.sums ?? {})
    .filter(([, delta]) => !isZero(delta))
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
    .map(([, delta]) => delta);
  if (!sums.length) return;
  if (!state.first) throw new Error(`Window ${window.start} of shard ${window.shardId} has sums but no first record`);
  const shard = rollupShardOfStreamShard(window.shardId);
  for (let part = 0; part * SUMS_PER_PART < sums.length; part++) {
    const marker: Write = {
      Put: {
        Item: { ...keys.reportWindow(window.shardId, window.start, state.first, part), entity: 'reportWindow', ttl: Math.floor(now.getTime() / 1000) + MARKER_TTL_SECONDS },
        ConditionExpression: 'attribute_not_exists(pk)',
      },
    };
    await writePart(store, { marker, sums: sums.slice(part * SUMS_PER_PART, (part + 1) * SUMS_PER_PART).map((delta) => rollupWrite(delta, shard)) });
  }
}

/** One part: committed, or found written already; rollups held by another shard's window are waited out. */
async function writePart(store: Store, writes: { marker: Write; sums: Write[] }): Promise<void> {
  for (let retry = 0; ; retry++) {
    const result = await transactWrite(store, writes);
    if (result.committed || result.refused.marker === 'ConditionalCheckFailed') return;
    const codes = Object.values(result.refused);
    if (retry >= CONFLICT_RETRIES || !codes.every((code) => code === 'TransactionConflict')) throw new Error(`Report window sums refused: ${JSON.stringify(result.refused)}`);
    await conflictPause(retry);
  }
}
