import { defaultStore } from '../../shared/default-store';
import type { Store } from '../../shared/store';
import { markForwardWrite, moveMarkForward, type ForwardMark } from '../../shared/forward-mark';
import { keys } from '../../shared/table';
import { ServiceUnavailableError } from '../../shared/errors';
import { onlyConflicts, transactWrite, writeIfAllowed, type Write } from '../../shared/writes';
import { fromWhatsAppNumber } from '../phones/whatsapp-number';
import { outboxFor } from '../webhooks/event-gate';
import { marketingOptOutEvent, type MarketingOptOutChange } from '../webhooks/webhook-event';
import { getMarketingOptOut, isStopPromotionsReply, marketingOptOutItem, type ButtonReply, type MarketingOptOut } from './marketing-opt-out';
import { nextNumberMove, type NumberMove } from './number-move';

/**
 * Every change of a workspace's marketing opt-outs (decision 139): recorded from a tap, from
 * WhatsApp's word or by an operator, lifted by a resume in WhatsApp or by an operator. Each is
 * written with its `marketing_opt_out.updated` event in one transaction when the workspace takes
 * events, so an integration that keeps its own suppression list hears of every change, and of no
 * change that did not happen.
 */

/** WhatsApp's failure code for a marketing message to a customer who stopped the business's marketing messages. */
const MARKETING_STOPPED = '131050';

/**
 * The customer's last resume (or an operator's lift), kept for good (decision 212): Meta re-delivers
 * a POST for 7 days, but its signature carries no time, so whoever kept one can replay the older
 * word byte for byte any day after. One small item per number that ever resumed.
 */
const resumeMark: ForwardMark = { entity: 'marketingResume', attribute: 'resumedAt', grainMs: 0, dropsExpiry: true };

/**
 * How much earlier than its own time an operator's lift is remembered as a resume (decision 203).
 * The lift is timed by a clock of ours to the millisecond, the customer's stop by Meta's in whole
 * seconds: a stop tapped just after the lift may be stamped before it. A minute covers that and
 * clocks a little apart; a stop from that minute arriving late opts the number out again, which
 * errs toward the customer's word.
 */
const LIFT_CLOCK_ALLOWANCE_MS = 60_000;

/**
 * Writes one change and its event; false when the change's condition (or its guard's) refused it
 * (then neither is written). A transaction refused for another reason throws (a conflict, 503): the
 * caller's source (Meta's retried POST, the operator) tries again.
 */
async function writeChange(store: Store, workspaceId: string, write: Write, change: MarketingOptOutChange, guard?: Write): Promise<boolean> {
  const outbox = await outboxFor(workspaceId, () => marketingOptOutEvent(change, new Date()), store);
  if (!outbox && !guard) return writeIfAllowed(store, write);
  const result = await transactWrite(store, { change: write, guard, outbox });
  if (result.committed) return true;
  if (result.refused.change === 'ConditionalCheckFailed' || result.refused.guard === 'ConditionalCheckFailed') return false;
  // Another write of the same items in flight: nothing was written, so the source may simply try again (503).
  if (onlyConflicts(result.refused)) throw new ServiceUnavailableError();
  // Named by workspace, never by the customer's number: the message reaches the logs.
  throw new Error(`Marketing opt-out change in workspace ${workspaceId} not written: ${JSON.stringify(result.refused)}`);
}

/** The customer's latest word to stop that an opt-out holds (decision 234). */
const latestStop = (optOut: MarketingOptOut): string => optOut.lastStoppedAt ?? optOut.optedOutAt;

/**
 * Stores the opt-out; false when the number had opted out already (the stored one stands, and no
 * event is written; the customer's word moves its latest stop forward), or, for one the customer's
 * word recorded (a tap, WhatsApp's), when they resumed marketing messages after it: that word came
 * late (decision 151). An operator's stands.
 */
export async function recordMarketingOptOut(optOut: MarketingOptOut, store: Store = defaultStore(), { guarded = optOut.source !== 'admin' } = {}): Promise<boolean> {
  // Before the put, not after its refusal: a resume lifting the stored one between the two would lose this word.
  if (guarded && (await writeIfAllowed(store, stopAgain(optOut)))) return false;
  const put: Write = { Put: { Item: marketingOptOutItem(optOut), ConditionExpression: 'attribute_not_exists(pk)' } };
  const notResumedSince: Write | undefined =
    !guarded
      ? undefined
      : {
          ConditionCheck: {
            Key: keys.marketingResume(optOut.workspaceId, optOut.phone),
            ConditionExpression: 'attribute_not_exists(resumedAt) OR resumedAt < :stoppedAt',
            ExpressionAttributeValues: { ':stoppedAt': latestStop(optOut) },
          },
        };
  return writeChange(store, optOut.workspaceId, put, { phone: optOut.phone, optedOut: true, by: optOut.source, at: optOut.optedOutAt }, notResumedSince);
}

/**
 * The customer's word on a number opted out already: the stored opt-out keeps its record (time,
 * source, message), and its latest stop moves forward to the word's, so that their resume older
 * than the word, which Meta delivers later, lifts nothing (decision 234). Refused when the number
 * has no opt-out, or one with a stop as late; it writes no event, as the number stays opted out.
 */
const stopAgain = (optOut: MarketingOptOut): Write => ({
  Update: {
    Key: keys.marketingOptOut(optOut.workspaceId, optOut.phone),
    UpdateExpression: 'SET lastStoppedAt = :stoppedAt',
    ConditionExpression: 'attribute_exists(pk) AND (lastStoppedAt < :stoppedAt OR (attribute_not_exists(lastStoppedAt) AND optedOutAt < :stoppedAt))',
    ExpressionAttributeValues: { ':stoppedAt': latestStop(optOut) },
  },
});

/**
 * An operator lifts the opt-out, so marketing sends reach the number again; false when it had none.
 * The lift is remembered as a resume, so the customer's older word (a tap, a stop, a `131050`) that
 * Meta delivers late does not opt the number out again (decision 151); a newer one does, and so
 * does one from the minute before the lift, whose whole second or clock may put it before the lift
 * when it came after (decision 203).
 */
export async function removeMarketingOptOut(workspaceId: string, phone: string, store: Store = defaultStore(), now = new Date()): Promise<boolean> {
  const at = now.toISOString();
  const remove: Write = { Delete: { Key: keys.marketingOptOut(workspaceId, phone), ConditionExpression: 'attribute_exists(pk)' } };
  const change: MarketingOptOutChange = { phone, optedOut: false, by: 'admin', at };
  const resumed = new Date(now.getTime() - LIFT_CLOCK_ALLOWANCE_MS).toISOString();
  // Remembered in the lift's own transaction: written after it, a late tap landing between the two
  // opted the number out again. Only for a lift that happens: a refused one changes nothing.
  if (await writeChange(store, workspaceId, remove, change, markForwardWrite(keys.marketingResume(workspaceId, phone), resumed, resumeMark))) return true;
  // Refused: no opt-out to lift, or a resume already as late (the customer's), which guards it as well.
  return writeChange(store, workspaceId, remove, change);
}

/**
 * Records the opt-out a "Stop promotions" tap asks for; any other reply changes nothing. Answers
 * whether the reply was an opt-out. A repeated or later tap keeps the first record (a later one
 * moves its latest stop).
 */
export async function optOutFromReply(reply: ButtonReply, store: Store = defaultStore()): Promise<boolean> {
  if (!isStopPromotionsReply(reply)) return false;
  await recordCustomerOptOut(
    {
      workspaceId: reply.workspaceId,
      phone: fromWhatsAppNumber(reply.phone),
      optedOutAt: reply.occurredAt,
      source: 'button',
      ...(reply.providerMessageId ? { providerMessageId: reply.providerMessageId } : {}),
    },
    store,
  );
  return true;
}

/**
 * A customer's number change (WhatsApp's `user_changed_number` notice, from the old number): the
 * opt-out they made on the old number follows them to the new one as it was made (its source, time
 * and message), so marketing sends to the number the notice hands the integration are refused as
 * they were. The old number keeps its own: we cannot tell when it passes to someone else. Guarded by
 * the new number's last resume, an operator's recorded opt-out too: a resume there (or a lift) after
 * the opt-out stands over the notice Meta delivers late or again. On to where the customer went from
 * the new number since, when that notice came first (`followCustomer`). Answers whether the new
 * number's opt-outs changed.
 */
export async function carryMarketingOptOut(change: { workspaceId: string; from: string; to: string; movedAt: string }, store: Store = defaultStore()): Promise<boolean> {
  const from = fromWhatsAppNumber(change.from);
  const to = fromWhatsAppNumber(change.to);
  const carried = await carryOptOut(change.workspaceId, from, { to, movedAt: change.movedAt }, store);
  await followCustomer(change.workspaceId, to, change.movedAt, store, new Set([from]));
  return carried;
}

/**
 * Records on the number the customer moved to the opt-out the old number holds, if its holder made
 * it no later than the move: one made after is the word of whoever has the number since. So is a
 * latest stop after the move: the copy keeps the old number's only if no later than the move.
 */
async function carryOptOut(workspaceId: string, from: string, move: NumberMove, store: Store): Promise<boolean> {
  // Consistently: it may be the customer's word recorded a moment before (`followCustomer`).
  const optOut = await getMarketingOptOut(workspaceId, from, store, { consistent: true });
  if (!optOut || optOut.optedOutAt > move.movedAt) return false;
  const { lastStoppedAt, ...made } = optOut;
  const asOfMove = lastStoppedAt && lastStoppedAt <= move.movedAt ? { ...made, lastStoppedAt } : made;
  return recordMarketingOptOut({ ...asOfMove, phone: move.to }, store, { guarded: true });
}

/**
 * Follows a customer from a number they left after `since` (the time of their word there, or of the
 * move that brought them to it) to each number they moved to since, carrying the opt-out: a notice
 * stored before the word (Meta's retries, POSTs out of order) has carried none (decision 226).
 */
async function followCustomer(workspaceId: string, phone: string, since: string, store: Store, met = new Set<string>()): Promise<void> {
  for await (const { from, move } of movesSince(workspaceId, phone, since, store, met)) await carryOptOut(workspaceId, from, move, store);
}

/**
 * The moves a customer made from `phone` after `since`, each from the number the one before brought
 * them to: one consistent Query of the number's moves per step, so each move is acted on before the
 * next is read; a number met twice (a customer back on a number they left) ends it.
 */
async function* movesSince(workspaceId: string, phone: string, since: string, store: Store, met = new Set<string>()): AsyncGenerator<{ from: string; move: NumberMove }> {
  met.add(phone);
  for (let from = phone, after = since; ; ) {
    const move = await nextNumberMove(workspaceId, from, after, store);
    if (!move || met.has(move.to)) return;
    yield { from, move };
    met.add(move.to);
    [from, after] = [move.to, move.movedAt];
  }
}

/**
 * Records an opt-out the customer's word made (a tap, WhatsApp's stop, a `131050`), then follows
 * them to any number they moved to after it. Followed whether or not it was written here: a number
 * that had it already may be Meta's retry of a word whose carry failed.
 */
async function recordCustomerOptOut(optOut: MarketingOptOut, store: Store): Promise<boolean> {
  const recorded = await recordMarketingOptOut(optOut, store);
  await followCustomer(optOut.workspaceId, optOut.phone, optOut.optedOutAt, store);
  return recorded;
}

export interface FailedMessage {
  workspaceId: string;
  /** E.164: the dispatch's number. */
  phone: string;
  failureCode: string;
  occurredAt: string;
  providerMessageId: string;
}

/**
 * Records the opt-out a failure shows: WhatsApp refused a marketing message because the customer
 * stopped the business's marketing messages, so every later one would fail alike (and cost a
 * provider call, a queue message and a failed dispatch). Answers whether the failure was one.
 */
export async function optOutFromFailure(failure: FailedMessage, store: Store = defaultStore()): Promise<boolean> {
  if (failure.failureCode !== MARKETING_STOPPED) return false;
  await recordCustomerOptOut({ workspaceId: failure.workspaceId, phone: failure.phone, optedOutAt: failure.occurredAt, source: 'whatsapp', providerMessageId: failure.providerMessageId }, store);
  return true;
}

export interface PreferenceChange {
  workspaceId: string;
  /** The customer's number as the webhook gives it (digits, no "+"). */
  phone: string;
  preference: 'stop' | 'resume';
  occurredAt: string;
}

/**
 * The customer's marketing preference, set in WhatsApp: `stop` records an opt-out (a number that
 * has one keeps it, its latest stop moved forward; not one older than the number's last resume);
 * `resume` is remembered, and lifts the one a tap or WhatsApp recorded whose latest stop is no later
 * than the resume, not one stopped after it (the webhooks may come out of order, decision 234) nor
 * an operator's, whose reason we cannot see. Either follows the customer to the numbers they moved
 * to after it (decision 226): a notice stored before a resume (Meta's retries, POSTs out of order)
 * carried the opt-out the resume lifts, so the resume is remembered on each of those numbers and
 * lifts what it lifts here (decision 232). Answers whether the opt-outs changed.
 */
export async function applyMarketingPreference(change: PreferenceChange, store: Store = defaultStore()): Promise<boolean> {
  const phone = fromWhatsAppNumber(change.phone);
  if (change.preference === 'stop') return recordCustomerOptOut({ workspaceId: change.workspaceId, phone, optedOutAt: change.occurredAt, source: 'whatsapp' }, store);
  let changed = await resume(change.workspaceId, phone, change.occurredAt, store);
  // Followed whether or not this number had one to lift: Meta's retry of a resume whose follow failed finds it lifted.
  for await (const { move } of movesSince(change.workspaceId, phone, change.occurredAt, store)) {
    if (await resume(change.workspaceId, move.to, change.occurredAt, store)) changed = true;
  }
  return changed;
}

/**
 * The customer's resume on one number: remembered there, so their older word arriving later (or a
 * carry of it) records nothing (decision 151), then the opt-out it overrides is lifted, with its
 * event: one whose every stop the customer made no later than the resume (decision 234). An item
 * stored before that decision has no `lastStoppedAt`: its `optedOutAt` is its latest stop.
 */
async function resume(workspaceId: string, phone: string, resumedAt: string, store: Store): Promise<boolean> {
  await rememberResume(workspaceId, phone, resumedAt, store);
  const lift: Write = {
    Delete: {
      Key: keys.marketingOptOut(workspaceId, phone),
      ConditionExpression: 'optedOutAt <= :resumedAt AND (attribute_not_exists(lastStoppedAt) OR lastStoppedAt <= :resumedAt) AND #source <> :admin',
      ExpressionAttributeNames: { '#source': 'source' },
      ExpressionAttributeValues: { ':resumedAt': resumedAt, ':admin': 'admin' },
    },
  };
  return writeChange(store, workspaceId, lift, { phone, optedOut: false, by: 'whatsapp', at: resumedAt });
}

/**
 * Keeps the latest moment the number resumed, forward only, so that a stop or a tap older than it
 * arriving later (Meta's webhooks may come out of order, a POST is re-delivered for days, and a kept
 * one can be replayed any day after) records nothing. Kept apart from the opt-out, so the send's
 * read and the opt-out list never see it.
 */
const rememberResume = (workspaceId: string, phone: string, resumedAt: string, store: Store): Promise<void> =>
  moveMarkForward(store, keys.marketingResume(workspaceId, phone), resumedAt, resumeMark);
