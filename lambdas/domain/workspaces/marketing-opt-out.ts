import { GetCommand } from '@aws-sdk/lib-dynamodb';
import * as z from '../../shared/zod';
import { defaultStore } from '../../shared/default-store';
import { queryAll } from '../../shared/query-all';
import type { Store } from '../../shared/store';
import { parseItem } from '../../shared/stored-item';
import { accessPatterns, keys } from '../../shared/table';

/**
 * The marketing opt-out item: a number that asked to receive no more of a workspace's marketing
 * messages. While it exists, a send of a MARKETING template to the number is refused; UTILITY and
 * AUTHENTICATION templates still go. The customer's tap on "Stop promotions" and WhatsApp's own
 * word (their preference, a marketing message refused for it) record it; a resume in WhatsApp
 * lifts what those recorded (decision 139). Operators list, add and remove it with the admin CLI.
 * Its changes, each with its `marketing_opt_out.updated` event, are in marketing-opt-out-changes.ts:
 * the send reads opt-outs and carries none of that.
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
  /**
   * The customer's latest word to stop, when later than `optedOutAt`: they stopped again on a number
   * opted out already (a tap or a stop after a resume Meta delivers later). A resume lifts the
   * opt-out only if no later than both (decision 234). `optedOutAt` stays the first record's time.
   */
  lastStoppedAt: z.optional(z.string()),
  /** The WhatsApp message behind it: the inbound tap, or the marketing message WhatsApp refused. */
  providerMessageId: z.optional(z.string()),
});

export type MarketingOptOut = z.output<typeof marketingOptOutSchema>;

/** The opt-out as the table keeps it. */
export const marketingOptOutItem = (optOut: MarketingOptOut) => ({ ...keys.marketingOptOut(optOut.workspaceId, optOut.phone), entity: 'marketingOptOut', ...marketingOptOutSchema.parse(optOut) });

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
 * The number's opt-out of the workspace's marketing messages, if it has one. `phone` is E.164.
 * `consistent` for a reader that must see one written a moment before (a carry to a new number).
 */
export async function getMarketingOptOut(workspaceId: string, phone: string, store: Store = defaultStore(), { consistent = false } = {}): Promise<MarketingOptOut | undefined> {
  const { Item } = await store.db.send(new GetCommand({ TableName: store.tableName, Key: keys.marketingOptOut(workspaceId, phone), ...(consistent ? { ConsistentRead: true } : {}) }));
  return Item ? parseItem(marketingOptOutSchema, Item, 'marketing opt-out') : undefined;
}

/** Every opt-out of the workspace, by number. */
export async function listMarketingOptOuts(workspaceId: string, store: Store = defaultStore()): Promise<MarketingOptOut[]> {
  return (await queryAll(store, accessPatterns.optOutsOfWorkspace(workspaceId))).map((item) => parseItem(marketingOptOutSchema, item, 'marketing opt-out'));
}
