import { defaultStore } from '../../shared/default-store';
import { messageMetrics } from '../../shared/metrics';
import type { Store } from '../../shared/store';
import { transactWrite } from '../../shared/writes';
import { conversationTouch } from '../conversations/conversation-item';
import type { Dispatch } from '../messages/dispatch';
import { getDispatchById, statusMoveUpdate, type StatusMove } from '../messages/dispatch-repository';
import { reportWrites } from '../reports/report-items';
import { deliveryEventPut } from './delivery-events';
import { providerMessagePut } from './provider-message';
import { canTransition, countsAsSent, isFirstReport, type DeliveryEventStatus } from './transitions';

export interface StatusChange extends StatusMove {
  /** Write a delivery event for this change (a provider's verdict, not our own bookkeeping). */
  event?: DeliveryEventStatus;
}

const ATTEMPTS = 3;

/**
 * Moves a dispatch to `change.to` if docs/api.md#dispatch-statuses allows it from its current status, with
 * everything that depends on the move in the same transaction: its delivery event and, the first
 * time it counts as sent, its tag links and report rollups (so a redelivered message or a
 * repeated callback can neither skip nor double them). Returns false when the move is not
 * allowed: a duplicate, late or out-of-order report.
 */
export async function applyStatus(dispatchId: string, change: StatusChange, store: Store = defaultStore(), known?: Dispatch): Promise<boolean> {
  let current = known;
  for (let attempt = 1; attempt <= ATTEMPTS; attempt++) {
    current ??= await getDispatchById(dispatchId, store, true);
    if (!current || !canTransition(current.status, change.to)) return false;
    const result = await transactWrite(store, transitionWrites(current, change, new Date().toISOString()));
    if (result.committed) {
      recordTransition(current, change);
      return true;
    }
    // Someone moved it first: read it again and decide again.
    current = undefined;
  }
  return false;
}

/**
 * What one move writes, by area: the dispatch, what its wamid names, its conversation, its
 * delivery events, its reports. The wamid is recorded with the move that first learns it (the
 * provider's answer, or a status that echoed the dispatch id when that answer was lost), so every
 * later status finds the dispatch by it.
 */
function transitionWrites(dispatch: Dispatch, requested: StatusChange, now: string) {
  // Provider timestamps are whole seconds: a delivery report may predate our own record of the send.
  const change = requested.to === 'delivered' && dispatch.sentAt && requested.occurredAt < dispatch.sentAt ? { ...requested, occurredAt: dispatch.sentAt } : requested;
  const firstReport = isFirstReport(dispatch, change.to);
  // A late failure after sent takes the dispatch back out of reports, which count only SENT or DELIVERED.
  const reports = firstReport ? reportWrites(dispatch, 1) : dispatch.reportedAt && !countsAsSent(change.to) ? reportWrites(dispatch, -1) : undefined;
  const events = [
    ...(firstReport ? [deliveryEventPut(dispatch, 'ACCEPTED', change.occurredAt)] : []),
    ...(change.event && !(change.event === 'ACCEPTED' && firstReport) ? [deliveryEventPut(dispatch, change.event, change.occurredAt, change.failureCode)] : []),
  ];
  return {
    dispatch: statusMoveUpdate(dispatch, change, now),
    providerMessage:
      change.providerMessageId && !dispatch.providerMessageId
        ? providerMessagePut(change.providerMessageId, { kind: 'dispatch', workspaceId: dispatch.workspaceId, dispatchId: dispatch.dispatchId })
        : undefined,
    conversation: conversationTouch(dispatch.workspaceId, dispatch.conversationId, now),
    events,
    reports,
  };
}

/** Metrics of a move that committed; a dispatch counts as sent once, however it got there. */
function recordTransition(dispatch: Dispatch, change: StatusChange): void {
  if (isFirstReport(dispatch, change.to)) messageMetrics.sent();
  if (change.to === 'delivered') messageMetrics.delivered();
  if (change.to === 'failed') messageMetrics.failed(change.failureCode ?? 'failed');
}
