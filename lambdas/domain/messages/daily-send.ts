import * as z from '../../shared/zod';
import { defaultStore } from '../../shared/default-store';
import type { Store } from '../../shared/store';
import { parseItem } from '../../shared/stored-item';
import { writeIfAllowed, type Write } from '../../shared/writes';
import { keys, type ItemKey } from '../../shared/table';
import { wibDay } from '../time/wib';
import { DELIVERY_EVENTS_MADE } from './dispatch';

/**
 * The daily-send marker: one send of a template to a number per WIB day, for workspaces with
 * `dedupe: wib-day`. Never read, only claimed and released; it outlives its day by a day.
 */
const TTL_SECONDS = 2 * 86_400;

export const dailySendKey = (workspaceId: string, now: Date, to: string, templateId: string): ItemKey => keys.dailySend(workspaceId, wibDay(now), to, templateId);

/** Claims the day's send; refused (ConditionalCheckFailed) when it was already made. */
export const dailySendClaim = (key: ItemKey, dispatchId: string, now: Date): Write => ({
  Put: { Item: { ...key, entity: 'dailySend', dispatchId, ttl: Math.floor(now.getTime() / 1000) + TTL_SECONDS }, ConditionExpression: 'attribute_not_exists(pk)' },
});

/**
 * Gives the day's send back (the queue refused its message), unless a duplicate was answered 409
 * for it meanwhile (`dailySendPromised`): that caller was told the message is sent today, so it
 * must be, and the send keeps its dispatch queued for the reconciler instead.
 */
export const dailySendRelease = (key: ItemKey): Write => ({ Delete: { Key: key, ConditionExpression: `attribute_not_exists(${PROMISED})` } });

const PROMISED = 'duplicateRefused';

/**
 * Marks the day's send as one a duplicate was refused for, before that duplicate is answered 409
 * `duplicate_send`. Refused (ConditionalCheckFailed) when the marker is gone: its send gave the day
 * back, and the duplicate may take it.
 */
export const dailySendPromised = (key: ItemKey): Write => ({
  Update: { Key: key, UpdateExpression: `SET ${PROMISED} = :true`, ConditionExpression: 'attribute_exists(pk)', ExpressionAttributeValues: { ':true': true } },
});

const failedChangeSchema = z.object({
  dispatchId: z.string().check(z.minLength(1)),
  workspaceId: z.string().check(z.minLength(1)),
  to: z.string().check(z.minLength(1)),
  templateId: z.string().check(z.minLength(1)),
  createdAt: z.string().check(z.minLength(1)),
});

/**
 * Whether the change failed the dispatch: WhatsApp refused it (the change's REJECTED event), or
 * answered "later" on every try (`retries_exhausted:<code>`, no verdict of WhatsApp's, so no event).
 * A later change of a failed dispatch may say so again: its release is refused, or finds nothing.
 */
function failedByChange(newImage: Record<string, unknown>): boolean {
  if (newImage.status !== 'failed') return false;
  const made = newImage[DELIVERY_EVENTS_MADE];
  return (Array.isArray(made) && made.includes('REJECTED')) || (typeof newImage.failureCode === 'string' && newImage.failureCode.startsWith('retries_exhausted:'));
}

/**
 * The release of the day's send a dispatch took, for the change that failed it: the template did
 * not go, so the day's send is free again (docs/api.md#dedupe), as send-check already says. Only
 * the marker this dispatch holds: a later send's is not taken back. None for any other change.
 */
export function dailySendReleaseOfFailure(newImage: Record<string, unknown>): Write | undefined {
  if (!failedByChange(newImage)) return undefined;
  const change = parseItem(failedChangeSchema, newImage, 'dispatch');
  return {
    Delete: {
      Key: dailySendKey(change.workspaceId, new Date(change.createdAt), change.to, change.templateId),
      ConditionExpression: 'dispatchId = :dispatch',
      ExpressionAttributeValues: { ':dispatch': change.dispatchId },
    },
  };
}

/** Makes each change's release (settled per change); a marker that is not the dispatch's, or none (`dedupe: none`), is left as it is. */
export async function releaseFailedDailySends(releases: readonly (Write | undefined)[], store: Store = defaultStore()): Promise<PromiseSettledResult<void>[]> {
  return Promise.allSettled(releases.map(async (release) => void (release && (await writeIfAllowed(store, release)))));
}
