import { GetCommand } from '@aws-sdk/lib-dynamodb';
import * as z from '../../shared/zod';
import { defaultStore } from '../../shared/default-store';
import type { Store } from '../../shared/store';
import { keys } from '../../shared/table';
import { moveMarkForward, type ForwardMark } from '../../shared/forward-mark';

/**
 * WhatsApp's template pacing (decision 148): for a new, unpaused or not yet GREEN template, WhatsApp
 * sends the first messages and holds the rest (the send's answer says `held_for_quality_assessment`)
 * until early feedback decides: released, each gets its `sent` report then; dropped, a `failed`
 * report with 132015. Meta puts the release within an hour at the 99th percentile. So a message of
 * a paced template can go unreported for an hour while the number's other messages are reported,
 * and the reports stop proving that a dead attempt's message was never taken (decision 63).
 *
 * What is kept: the latest moment a send of a template from a number was answered "held", one
 * item per number and template, beside the number's report evidence.
 */

/** Meta's figure for the release of held messages (99th percentile): an attempt this close after a hold may be held too. */
export const PACING_HOLD_MS = 60 * 60_000;
/** As report-evidence.ts: a container writes a template's mark only when it moves forward by this much. */
export const PACING_GRAIN_MS = 10_000;
/** The mark only matters for PACING_HOLD_MS and the wait after it; a day keeps it well past both. */
const PACING_TTL_SECONDS = 86_400;

const written = new Map<string, string>();
const heldMark: ForwardMark = { entity: 'templatePacing', attribute: 'heldThrough', grainMs: PACING_GRAIN_MS, ttlSeconds: PACING_TTL_SECONDS };

/** Forget what this container wrote (a test's fresh container). */
export const clearTemplatePacing = (): void => written.clear();

const pacingItem = z.object({ heldThrough: z.string() });

/** Notes that WhatsApp held a message of `templateId` taken from `phoneNumberId` at `sentAt`; moves forward only. */
export const noteHeldSend = (phoneNumberId: string, templateId: string, sentAt: string, store: Store = defaultStore()): Promise<void> =>
  moveMarkForward(store, keys.templatePacing(phoneNumberId, templateId), sentAt, heldMark, written);

/**
 * Whether WhatsApp may be holding a message of `templateId` that the number's attempt started at
 * `attemptStartedAt` sent: a send of that template was answered "held" within PACING_HOLD_MS
 * before the attempt (or after it). The stored moment is at most PACING_GRAIN_MS behind the latest.
 */
export async function mayBeHeld(phoneNumberId: string, templateId: string, attemptStartedAt: string, store: Store = defaultStore()): Promise<boolean> {
  const { Item } = await store.db.send(new GetCommand({ TableName: store.tableName, Key: keys.templatePacing(phoneNumberId, templateId) }));
  if (!Item) return false;
  const { heldThrough } = pacingItem.parse(Item);
  return Date.parse(heldThrough) + PACING_GRAIN_MS >= Date.parse(attemptStartedAt) - PACING_HOLD_MS;
}
