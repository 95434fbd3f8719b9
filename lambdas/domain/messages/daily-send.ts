import type { Write } from '../../shared/writes';
import { keys, type ItemKey } from '../../shared/table';
import { wibDay } from '../time/wib';

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

/** Gives the day's send back (the send failed). */
export const dailySendRelease = (key: ItemKey): Write => ({ Delete: { Key: key } });
