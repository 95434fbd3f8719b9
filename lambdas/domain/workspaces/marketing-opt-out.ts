import { DeleteCommand, GetCommand } from '@aws-sdk/lib-dynamodb';
import * as z from '../../shared/zod';
import { defaultStore } from '../../shared/default-store';
import { queryAll } from '../../shared/query-all';
import type { Store } from '../../shared/store';
import { parseItem } from '../../shared/stored-item';
import { accessPatterns, keys } from '../../shared/table';
import { writeIfAllowed, type Write } from '../../shared/writes';
import { fromWhatsAppNumber } from '../phones/whatsapp-number';

/**
 * The marketing opt-out item: a number that asked to receive no more of a workspace's marketing
 * messages. While it exists, a send of a MARKETING template to the number is refused; UTILITY and
 * AUTHENTICATION templates still go. The customer's tap on "Stop promotions" and WhatsApp's own
 * word (their preference, a marketing message refused for it) record it; a resume in WhatsApp
 * lifts what those recorded (decision 139). Operators list, add and remove it with the admin CLI.
 */
const marketingOptOutSchema = z.object({
  workspaceId: z.string(),
  /** E.164. */
  phone: z.string(),
  optedOutAt: z.string(),
  /**
   * `button`: the customer tapped "Stop promotions"; `whatsapp`: WhatsApp said the customer stopped
   * the business's marketing messages (their `user_preferences`, or a marketing message it refused
   * for it, `131050`); `admin`: an operator recorded it.
   */
  source: z.enum(['button', 'whatsapp', 'admin']),
  /** The WhatsApp message behind it: the inbound tap, or the marketing message WhatsApp refused. */
  providerMessageId: z.optional(z.string()),
});

export type MarketingOptOut = z.output<typeof marketingOptOutSchema>;

/**
 * The label of WhatsApp's marketing opt-out quick-reply button. A tap arrives as an inbound
 * message of type `button` whose `text` is the label and whose `payload` is the label too, or what
 * the business set when it sent the template.
 */
const STOP_PROMOTIONS = 'stop promotions';

export interface ButtonReply {
  workspaceId: string;
  /** The customer's number as the webhook gives it (digits, no "+"). */
  phone: string;
  /** The inbound message's type; only `button` replies can opt out. */
  type: string;
  text?: string | null | undefined;
  payload?: string | null | undefined;
  occurredAt: string;
  providerMessageId?: string;
}

/** True for a tap on the "Stop promotions" button (its text or payload, in any case). */
export function isStopPromotionsReply(reply: Pick<ButtonReply, 'type' | 'text' | 'payload'>): boolean {
  if (reply.type !== 'button') return false;
  return [reply.text, reply.payload].some((value) => value?.trim().toLowerCase() === STOP_PROMOTIONS);
}

/**
 * Records the opt-out a "Stop promotions" tap asks for; any other reply changes nothing. Answers
 * whether the reply was an opt-out. A repeated or later tap keeps the first record.
 */
export async function optOutFromReply(reply: ButtonReply, store: Store = defaultStore()): Promise<boolean> {
  if (!isStopPromotionsReply(reply)) return false;
  await recordMarketingOptOut(
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

/** WhatsApp's failure code for a marketing message to a customer who stopped the business's marketing messages. */
const MARKETING_STOPPED = '131050';

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
  await recordMarketingOptOut({ workspaceId: failure.workspaceId, phone: failure.phone, optedOutAt: failure.occurredAt, source: 'whatsapp', providerMessageId: failure.providerMessageId }, store);
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
 * has one keeps it); `resume` lifts the one a tap or WhatsApp recorded no later than the resume,
 * not one recorded after it (the webhooks may come out of order) nor an operator's, whose reason we
 * cannot see. Answers whether anything changed.
 */
export async function applyMarketingPreference(change: PreferenceChange, store: Store = defaultStore()): Promise<boolean> {
  const phone = fromWhatsAppNumber(change.phone);
  if (change.preference === 'stop') return recordMarketingOptOut({ workspaceId: change.workspaceId, phone, optedOutAt: change.occurredAt, source: 'whatsapp' }, store);
  return writeIfAllowed(store, {
    Delete: {
      Key: keys.marketingOptOut(change.workspaceId, phone),
      ConditionExpression: 'optedOutAt <= :resumedAt AND #source <> :admin',
      ExpressionAttributeNames: { '#source': 'source' },
      ExpressionAttributeValues: { ':resumedAt': change.occurredAt, ':admin': 'admin' },
    },
  });
}

/** Creates the opt-out unless the number has one already (then the first is kept). */
export const marketingOptOutPut = (optOut: MarketingOptOut): Write => ({
  Put: {
    Item: { ...keys.marketingOptOut(optOut.workspaceId, optOut.phone), entity: 'marketingOptOut', ...marketingOptOutSchema.parse(optOut) },
    ConditionExpression: 'attribute_not_exists(pk)',
  },
});

/** Stores the opt-out; false when the number had opted out already (the stored one stands). */
export async function recordMarketingOptOut(optOut: MarketingOptOut, store: Store = defaultStore()): Promise<boolean> {
  return writeIfAllowed(store, marketingOptOutPut(optOut));
}

/** The number's opt-out of the workspace's marketing messages, if it has one. `phone` is E.164. */
export async function getMarketingOptOut(workspaceId: string, phone: string, store: Store = defaultStore()): Promise<MarketingOptOut | undefined> {
  const { Item } = await store.db.send(new GetCommand({ TableName: store.tableName, Key: keys.marketingOptOut(workspaceId, phone) }));
  return Item ? parseItem(marketingOptOutSchema, Item, 'marketing opt-out') : undefined;
}

/** Every opt-out of the workspace, by number. */
export async function listMarketingOptOuts(workspaceId: string, store: Store = defaultStore()): Promise<MarketingOptOut[]> {
  return (await queryAll(store, accessPatterns.optOutsOfWorkspace(workspaceId))).map((item) => parseItem(marketingOptOutSchema, item, 'marketing opt-out'));
}

/** Lifts the opt-out, so marketing sends reach the number again; false when it had none. */
export async function removeMarketingOptOut(workspaceId: string, phone: string, store: Store = defaultStore()): Promise<boolean> {
  const { Attributes } = await store.db.send(
    new DeleteCommand({ TableName: store.tableName, Key: keys.marketingOptOut(workspaceId, phone), ReturnValues: 'ALL_OLD' }),
  );
  return Attributes !== undefined;
}
