import { GetCommand } from '@aws-sdk/lib-dynamodb';
import * as z from '../../shared/zod';
import { defaultStore } from '../../shared/default-store';
import type { Store } from '../../shared/store';
import { keys } from '../../shared/table';
import { moveMarkForward, type ForwardMark } from '../../shared/forward-mark';

/**
 * What the provider's reports prove about a sending number: the latest moment at which it took a
 * message we have since heard about (`reportedThrough`, the reported dispatch's `sentAt`). A
 * consumer that died with a claim in flight leaves a dispatch whose provider call may or may not
 * have happened; once the number's reports have gone past that claim, and a silence long enough
 * for a late report has passed, a report for it would have come if the provider had taken it
 * (decision 63, lambdas/domain/delivery/reconcile.ts).
 */

/**
 * A container writes only when the evidence moves forward by this much, so a busy number costs a
 * few writes a minute, not one per report. Whatever a container skips, the stored value is within
 * this of it: after a report on a message taken at S, `reportedThrough` >= S - EVIDENCE_GRAIN_MS.
 */
export const EVIDENCE_GRAIN_MS = 10_000;
const written = new Map<string, string>();
const evidence: ForwardMark = { entity: 'numberReports', attribute: 'reportedThrough', grainMs: EVIDENCE_GRAIN_MS };

/** Forget what this container wrote (a test's fresh container). */
export const clearReportEvidence = (): void => written.clear();

const evidenceItem = z.object({ reportedThrough: z.string() });

/** Notes that the provider reported on a message it took at `sentAt` from `phoneNumberId`; moves forward only. */
export const noteReport = (phoneNumberId: string, sentAt: string, store: Store = defaultStore()): Promise<void> =>
  moveMarkForward(store, keys.numberReports(phoneNumberId), sentAt, evidence, written);

/** The latest `sentAt` the provider has reported on for this number, if any. */
export async function reportedThrough(phoneNumberId: string, store: Store = defaultStore()): Promise<string | undefined> {
  const { Item } = await store.db.send(new GetCommand({ TableName: store.tableName, Key: keys.numberReports(phoneNumberId) }));
  return Item ? evidenceItem.parse(Item).reportedThrough : undefined;
}
