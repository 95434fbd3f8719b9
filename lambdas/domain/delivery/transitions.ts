import type { Dispatch, DispatchStatus } from '../messages/dispatch';

/**
 * Where a dispatch may move from (docs/api.md#dispatch-statuses). Status never moves backwards, so a duplicate or
 * late callback finds its target not reachable and changes nothing. `processing → delivered` and
 * `unknown → delivered` cover a delivery report that overtakes the sent one.
 */
export const allowedFrom: Record<DispatchStatus, readonly DispatchStatus[]> = {
  queued: [],
  processing: ['queued'],
  unknown: ['processing'],
  sent: ['processing', 'unknown'],
  delivered: ['processing', 'unknown', 'sent'],
  failed: ['queued', 'processing', 'unknown', 'sent'],
  canceled: ['queued'],
};

export const canTransition = (from: DispatchStatus, to: DispatchStatus): boolean => allowedFrom[to].includes(from);

/**
 * What a claim leaves its dispatch in: `processing`, or `unknown` for an `unknown`'s retry (decision
 * 227) and for the reconciler's `unknown` of a dead claim, which the claim's verdict corrects (decision 211).
 */
const claimedStatuses: readonly DispatchStatus[] = ['processing', 'unknown'];

/**
 * Where a move may come from. The verdict of a claim (`ofClaim`) lands only on what its claim left:
 * a report that moved the dispatch on meanwhile (WhatsApp's late word on an `unknown`'s first send,
 * taken after all) tells of a send the customer has, and wins over the retry's refusal (decision 237).
 */
export const movesFrom = (move: { to: DispatchStatus; ofClaim?: number }): readonly DispatchStatus[] =>
  move.ofClaim === undefined ? allowedFrom[move.to] : allowedFrom[move.to].filter((status) => claimedStatuses.includes(status));

export const canMove = (from: DispatchStatus, move: { to: DispatchStatus; ofClaim?: number }): boolean => movesFrom(move).includes(from);

/** A claim's verdict the transition table allows, refused because a report moved the dispatch on from what the claim left (decision 237). */
export const overtakenByReport = (from: DispatchStatus, move: { to: DispatchStatus; ofClaim?: number }): boolean => canTransition(from, move.to) && !canMove(from, move);

/**
 * Not a transition: the deliver consumer's verdict (`ofClaim`) on an `unknown`'s retry, lost again
 * (decision 227). It stays `unknown`, its GET body as it was; only while it holds the retry's attempt.
 */
export const staysUnknown = (from: DispatchStatus, move: { to: DispatchStatus; ofClaim?: number }): boolean => from === 'unknown' && move.to === 'unknown' && move.ofClaim !== undefined;

/** The statuses a dispatch in `from` may still come to, `from` included. */
function reachableFrom(from: DispatchStatus): DispatchStatus[] {
  const reached = [from];
  for (let i = 0; i < reached.length; i++) {
    for (const [to, sources] of Object.entries(allowedFrom) as [DispatchStatus, readonly DispatchStatus[]][]) {
      if (sources.includes(reached[i]!) && !reached.includes(to)) reached.push(to);
    }
  }
  return reached;
}

/** Worked out once: every status report asks. */
const stillReachable = Object.fromEntries((Object.keys(allowedFrom) as DispatchStatus[]).map((status) => [status, reachableFrom(status)])) as Record<DispatchStatus, DispatchStatus[]>;

/**
 * Whether a move to `to` could still be allowed on a dispatch last seen in `from`. A read may be
 * stale but never ahead, and status never moves backwards, so the dispatch is now in a status
 * `from` can come to: when none of those allows the move, no fresh read would (decision 121).
 */
export const mayStillMove = (from: DispatchStatus, to: DispatchStatus): boolean => stillReachable[from].some((status) => canTransition(status, to));

/** Statuses that count in reports (docs/api.md#reports). */
export const countsAsSent = (status: DispatchStatus): boolean => status === 'sent' || status === 'delivered';

/** Delivery event statuses (docs/api.md#delivery-status). */
export const deliveryEventStatuses = ['ACCEPTED', 'DELIVERED', 'REJECTED'] as const;
export type DeliveryEventStatus = (typeof deliveryEventStatuses)[number];

/** The dispatch's time each delivery event is at: the time the move that made it kept, or a correction's (decisions 200, 236). */
export const eventTimes = { ACCEPTED: 'sentAt', DELIVERED: 'deliveredAt', REJECTED: 'failedAt' } as const satisfies Record<DeliveryEventStatus, keyof Dispatch>;

/**
 * The first move into a status that counts in reports: happens once per dispatch, guarded by
 * `sentAt`, which only that move sets and nothing removes (decision 105). A dispatch whose sent
 * status failed late keeps its `sentAt`; it is `failed`, from which nothing moves.
 */
export const isFirstReport = (dispatch: { sentAt: string | null }, to: DispatchStatus): boolean => countsAsSent(to) && !dispatch.sentAt;

/**
 * The delivery events a move makes (docs/api.md#delivery-status): ACCEPTED with the first move that
 * counts as sent, and the provider's verdict the move carries (DELIVERED, REJECTED).
 */
export function eventsOfMove(dispatch: { sentAt: string | null }, move: { to: DispatchStatus; event?: DeliveryEventStatus }): DeliveryEventStatus[] {
  const events: DeliveryEventStatus[] = isFirstReport(dispatch, move.to) ? ['ACCEPTED'] : [];
  if (move.event && !events.includes(move.event)) events.push(move.event);
  return events;
}
