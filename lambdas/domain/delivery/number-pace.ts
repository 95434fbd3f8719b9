import { GetCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { config } from '../../shared/config';
import { defaultStore } from '../../shared/default-store';
import { logger } from '../../shared/logger';
import { MAX_QUEUE_DELAY_SECONDS } from '../../shared/queue';
import type { Store } from '../../shared/store';
import { keys } from '../../shared/table';
import { writeIfAllowed } from '../../shared/writes';
import { lookUpWorkspace } from '../workspaces/workspace-lookup';
import type { Workspace } from '../workspaces/workspace';

/**
 * Each WhatsApp sending number is offered at most its throughput a second (decision 136). Meta
 * answers `130429` to a number sent faster than that, and those answers spend the dispatch's retry
 * budget (five, decision 132): a campaign pushed through a consumer cap raised for several
 * numbers would fail some of its own messages `retries_exhausted`. So the deliver consumer asks a
 * number's pace before it claims anything, and queues what does not fit again for a later second.
 *
 * The pace is a counter per number and second in the table, taken once per number and batch with
 * one `ADD` (so at most one write a batch, about 0.1 a message at full pace). A container asks only
 * when it could reach the limit: while every consumer sending as fast as it does would stay under
 * it (`DELIVER_MAX_CONCURRENCY` × what it sent from the number this second), it sends unasked and
 * adds what it sent to the counter the next time it asks within the second; once it has asked, it
 * asks for every batch until the second is over. At the default cap (2) and 80 a second, a
 * container sends up to 40 a second from a number without a write. The pace is approximate where
 * containers that never asked meet ones that did within a second; what passes it meets Meta's
 * `130429`, retried as before.
 */

/** Where deliveries from the stack's default number (a WhatsApp workspace without a number of its own) are counted. */
const STACK_NUMBER = 'stack-default';

/**
 * What this container sent from each number in the current second, how much of that the counter
 * has not been told, and whether it has asked the counter this second (then it asks for the rest
 * of the second: the second is contested).
 */
const sentThisSecond = new Map<string, { second: number; sent: number; untold: number; asked: boolean }>();

export interface NumberPace {
  /** The number's throughput, messages a second. */
  perSecond: number;
  /** How many consumers may send at once (the event source's `maxConcurrency`). */
  consumers: number;
}

/**
 * Takes `wanted` sends of the current second from `number`'s pace. Returns, for each in order, 0
 * (send now) or the seconds until a second with room for it: ones past the limit by up to a
 * second's worth wait 1 s, by up to two seconds' worth 2 s, and so on.
 */
export async function takeNumberSlots(number: string, wanted: number, pace: NumberPace, now: Date, store: Store = defaultStore()): Promise<number[]> {
  const second = Math.floor(now.getTime() / 1000);
  let mine = sentThisSecond.get(number);
  if (!mine || mine.second !== second) {
    mine = { second, sent: 0, untold: 0, asked: false };
    sentThisSecond.set(number, mine);
  }
  if (!mine.asked && pace.consumers * (mine.sent + wanted) <= pace.perSecond) {
    mine.sent += wanted;
    mine.untold += wanted;
    return new Array<number>(wanted).fill(0);
  }
  const { Attributes } = await store.db.send(
    new UpdateCommand({
      TableName: store.tableName,
      Key: keys.numberPace(number, second),
      UpdateExpression: 'ADD offered :offered SET entity = :entity, #ttl = :ttl',
      ExpressionAttributeNames: { '#ttl': 'ttl' },
      ExpressionAttributeValues: { ':offered': mine.untold + wanted, ':entity': 'numberPace', ':ttl': second + 3_600 },
      ReturnValues: 'UPDATED_NEW',
    }),
  );
  mine.untold = 0;
  mine.asked = true;
  // Everything offered this second before this batch, this container's untold sends among it.
  const before = Number(Attributes?.offered ?? wanted) - wanted;
  const granted = Math.max(0, Math.min(wanted, pace.perSecond - before));
  mine.sent += granted;
  const waits = Array.from({ length: wanted }, (_, i) => (i < granted ? 0 : Math.min(MAX_QUEUE_DELAY_SECONDS, Math.ceil((before + i + 1 - pace.perSecond) / pace.perSecond))));
  if (granted < wanted) await noteHold(number, second + waits[wanted - 1]!, store);
  return waits;
}

/**
 * A held delivery goes back on the queue as a new message, younger than its dispatch's wait: the
 * queue's oldest message no longer shows it, so the reconciler asks the number how long its pace
 * has held deliveries back (decision 241). Kept on one item per number, rounded up to the grain and
 * written only when it passes what this container last wrote: a write per container, number and
 * grain at most, none per message. Not written, the reconciler may queue a held dispatch a second
 * time, which its claim keeps from a second send: the hold goes ahead all the same.
 */
const HOLD_GRAIN_SECONDS = 15;
const heldUntilWritten = new Map<string, number>();

async function noteHold(number: string, until: number, store: Store): Promise<void> {
  const grained = Math.ceil(until / HOLD_GRAIN_SECONDS) * HOLD_GRAIN_SECONDS;
  if ((heldUntilWritten.get(number) ?? 0) >= grained) return;
  try {
    await writeIfAllowed(store, {
      Update: {
        Key: keys.numberPaceHold(number),
        UpdateExpression: 'SET heldUntil = :until, entity = :entity, #ttl = :ttl',
        ConditionExpression: 'attribute_not_exists(heldUntil) OR heldUntil < :until',
        ExpressionAttributeNames: { '#ttl': 'ttl' },
        ExpressionAttributeValues: { ':until': grained, ':entity': 'numberPaceHold', ':ttl': grained + 3_600 },
      },
    });
    heldUntilWritten.set(number, grained);
  } catch (error) {
    logger.warn('Could not note how long a number’s pace holds deliveries back; the reconciler may queue them again', { number, error: error as Error });
  }
}

/**
 * Until when the pace of the number the workspace sends from has held deliveries back, epoch ms;
 * undefined if it never has lately, or the workspace is not paced, or either read is refused: a hint
 * the reconciler does without (a dispatch queued twice is claimed once), where a refusal thrown on
 * stopped its whole run, and every lost dispatch after it stayed lost.
 */
export async function paceHeldUntil(workspaceId: string, now: Date, store: Store = defaultStore()): Promise<number | undefined> {
  try {
    const sender = paceOf(await lookUpWorkspace(workspaceId, now, store));
    if (!sender) return undefined;
    const { Item } = await store.db.send(new GetCommand({ TableName: store.tableName, Key: keys.numberPaceHold(sender.number) }));
    return typeof Item?.heldUntil === 'number' ? Item.heldUntil * 1000 : undefined;
  } catch (error) {
    logger.warn('Could not read how long a number’s pace holds deliveries back; its lost dispatches are queued again as if it held none', { workspaceId, error: error as Error });
    return undefined;
  }
}

/** The number a WhatsApp workspace sends from, and its pace; none for the sandbox, which has no throughput to keep to. */
function paceOf(workspace: Workspace): { number: string; pace: NumberPace } | undefined {
  if (workspace.settings.provider !== 'whatsapp') return undefined;
  const own = workspace.settings.whatsappPhoneNumberId;
  const perSecond = (own ? workspace.settings.whatsappMessagesPerSecond : undefined) ?? config.WHATSAPP_MESSAGES_PER_SECOND;
  return { number: own ?? STACK_NUMBER, pace: { perSecond, consumers: config.DELIVER_MAX_CONCURRENCY } };
}

/**
 * Paces a batch of deliveries by the numbers they send from: for each, in order, 0 (deliver now)
 * or the seconds to hold it back. A delivery whose workspace cannot be read, or whose number's
 * pace the table does not answer, goes now: its delivery meets the same fault and retries, or Meta
 * paces it.
 */
export async function paceDeliveries(deliveries: readonly { workspaceId: string }[], now: Date, store?: Store): Promise<number[]> {
  const waits = deliveries.map(() => 0);
  const byNumber = new Map<string, { pace: NumberPace; positions: number[] }>();
  // Read at once, as the deliveries would read them: the container's cache keeps them for the delivery.
  const workspaces = await Promise.all(deliveries.map(({ workspaceId }) => lookUpWorkspace(workspaceId, now, store).catch(() => undefined)));
  for (const [position, workspace] of workspaces.entries()) {
    const sender = workspace && paceOf(workspace);
    if (!sender) continue;
    const group = byNumber.get(sender.number) ?? { pace: sender.pace, positions: [] };
    group.positions.push(position);
    byNumber.set(sender.number, group);
  }
  for (const [number, { pace, positions }] of byNumber) {
    try {
      const slots = await takeNumberSlots(number, positions.length, pace, now, store);
      positions.forEach((position, i) => (waits[position] = slots[i]!));
    } catch (error) {
      logger.warn('Could not read a number’s pace; delivering unpaced', { number, error: error as Error });
    }
  }
  return waits;
}

export const clearNumberPaces = () => {
  sentThisSecond.clear();
  heldUntilWritten.clear();
};
