import { randomUUID } from 'node:crypto';
import type { AttributeValue } from '@aws-sdk/client-dynamodb';
import { TransactWriteCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { unmarshall } from '@aws-sdk/util-dynamodb';
import { isDependencyUnavailable } from '../../shared/dependency-errors';
import { defaultStore } from '../../shared/default-store';
import { messageMetrics } from '../../shared/metrics';
import type { Store } from '../../shared/store';
import { indexKeys, keys } from '../../shared/table';
import type { Dispatch, DispatchStatus } from '../messages/dispatch';
import { getDispatchById, toDispatch } from '../messages/dispatch-repository';
import { wibDay } from '../time/wib';
import { allowedFrom, canTransition, countsAsSent, type DeliveryEventStatus } from './transitions';

export type ClaimResult = { claimed: true; dispatch: Dispatch } | { claimed: false; current: Dispatch | undefined };

/** How long a consumer keeps asking an unreachable table whether its claim went through (its timeout is 30 s). */
export const CLAIM_OUTCOME_DEADLINE_MS = 10_000;

/**
 * Claims a dispatch for one provider attempt: `queued → processing`, or a `processing` one whose
 * previous attempt was released. Sets `attemptStartedAt`, so a redelivered message, or a
 * consumer that crashed mid-call, can never cause a second provider call.
 *
 * A claim the table did not answer may have been taken all the same, and a taken claim is never
 * given back; so the claim is tried again until the table answers, and `attemptId` lets it
 * recognise itself when an earlier try did get through.
 */
export async function claimDispatch(dispatchId: string, now: Date, store: Store = defaultStore()): Promise<ClaimResult> {
  const attemptId = randomUUID();
  const deadline = Date.now() + CLAIM_OUTCOME_DEADLINE_MS;
  for (let pause = 100; ; pause = Math.min(pause * 2, 1_000)) {
    try {
      const { Attributes } = await store.db.send(
        new UpdateCommand({
          TableName: store.tableName,
          Key: keys.dispatch(dispatchId),
          UpdateExpression: 'SET #status = :processing, attemptStartedAt = :now, attemptId = :attempt, updatedAt = :now ADD attempts :one',
          ConditionExpression: '#status = :queued OR (#status = :processing AND attribute_not_exists(attemptStartedAt))',
          ExpressionAttributeNames: { '#status': 'status' },
          ExpressionAttributeValues: { ':processing': 'processing', ':queued': 'queued', ':now': now.toISOString(), ':attempt': attemptId, ':one': 1 },
          ReturnValues: 'ALL_NEW',
          ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
        }),
      );
      return { claimed: true, dispatch: toDispatch(Attributes!) };
    } catch (error) {
      if ((error as Error).name === 'ConditionalCheckFailedException') {
        // The document client does not unmarshall what a failed condition returns.
        const raw = (error as { Item?: Record<string, AttributeValue> }).Item;
        const item = raw ? unmarshall(raw) : undefined;
        if (item?.attemptId === attemptId) return { claimed: true, dispatch: toDispatch(item) };
        return { claimed: false, current: item ? toDispatch(item) : undefined };
      }
      if (!isDependencyUnavailable(error) || Date.now() + pause > deadline) throw error;
      await new Promise((resolve) => setTimeout(resolve, pause));
    }
  }
}

/** The provider certainly did not take the message (rate limited, 5xx): allow another attempt. */
export async function releaseClaim(dispatch: Dispatch, now: Date, store: Store = defaultStore()): Promise<void> {
  await store.db
    .send(
      new UpdateCommand({
        TableName: store.tableName,
        Key: keys.dispatch(dispatch.dispatchId),
        UpdateExpression: 'SET updatedAt = :now REMOVE attemptStartedAt, attemptId',
        ConditionExpression: '#status = :processing AND attemptStartedAt = :mine',
        ExpressionAttributeNames: { '#status': 'status' },
        ExpressionAttributeValues: { ':processing': 'processing', ':mine': dispatch.attemptStartedAt, ':now': now.toISOString() },
      }),
    )
    .catch((error: Error) => {
      // Already moved on (a callback settled it): nothing to release.
      if (error.name !== 'ConditionalCheckFailedException') throw error;
    });
}

export interface StatusChange {
  to: DispatchStatus;
  /** When it happened at the provider (or now). */
  occurredAt: string;
  failureCode?: string;
  providerMessageId?: string;
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
    try {
      await store.db.send(new TransactWriteCommand({ TransactItems: transitionItems(current, change, store.tableName) }));
      recordTransition(current, change);
      return true;
    } catch (error) {
      if ((error as Error).name !== 'TransactionCanceledException') throw error;
      // Someone moved it first: read it again and decide again.
      current = undefined;
    }
  }
  return false;
}

/** The first move into a status that counts in reports: happens once per dispatch, guarded by `reportedAt`. */
const isFirstReport = (dispatch: Dispatch, to: DispatchStatus) => countsAsSent(to) && !dispatch.reportedAt;

/** Metrics of a move that committed; a dispatch counts as sent once, however it got there. */
function recordTransition(dispatch: Dispatch, change: StatusChange): void {
  if (isFirstReport(dispatch, change.to)) messageMetrics.sent();
  if (change.to === 'delivered') messageMetrics.delivered();
  if (change.to === 'failed') messageMetrics.failed(change.failureCode ?? 'failed');
}

function transitionItems(dispatch: Dispatch, requested: StatusChange, tableName: string) {
  const now = new Date().toISOString();
  // Provider timestamps are whole seconds: a delivery report may predate our own record of the send.
  const change = requested.to === 'delivered' && dispatch.sentAt && requested.occurredAt < dispatch.sentAt ? { ...requested, occurredAt: dispatch.sentAt } : requested;
  const firstReport = isFirstReport(dispatch, change.to);
  const set = ['#status = :to', 'updatedAt = :now'];
  const remove: string[] = [];
  const values: Record<string, unknown> = { ':to': change.to, ':now': now };

  if (countsAsSent(change.to)) {
    set.push('sentAt = if_not_exists(sentAt, :at)');
    values[':at'] = change.occurredAt;
  }
  if (change.to === 'delivered') set.push('deliveredAt = :at');
  if (change.failureCode) {
    set.push('failureCode = :code');
    values[':code'] = change.failureCode;
  }
  if (change.providerMessageId) {
    set.push('providerMessageId = :pmid');
    values[':pmid'] = change.providerMessageId;
  }
  if (change.to !== 'processing') remove.push('attemptStartedAt', 'attemptId');
  if (firstReport) {
    const index = indexKeys.sentDispatchByDay(dispatch.workspaceId, wibDay(new Date(dispatch.createdAt)), dispatch.createdAt, dispatch.dispatchId);
    set.push('reportedAt = :now', 'gsi2pk = :gsi2pk', 'gsi2sk = :gsi2sk');
    Object.assign(values, { ':gsi2pk': index.gsi2pk, ':gsi2sk': index.gsi2sk });
  } else if (!countsAsSent(change.to)) {
    // Failed, canceled or unknown: the reconciler has nothing more to do with it, nor the reports.
    remove.push('gsi2pk', 'gsi2sk');
    if (dispatch.reportedAt) remove.push('reportedAt');
  }

  const fromList = allowedFrom[change.to].map((status, i) => {
    values[`:from${i}`] = status;
    return `:from${i}`;
  });

  const items: NonNullable<ConstructorParameters<typeof TransactWriteCommand>[0]['TransactItems']> = [
    {
      Update: {
        TableName: tableName,
        Key: keys.dispatch(dispatch.dispatchId),
        UpdateExpression: `SET ${set.join(', ')}${remove.length ? ` REMOVE ${remove.join(', ')}` : ''}`,
        ConditionExpression: `#status IN (${fromList.join(', ')})${firstReport ? ' AND attribute_not_exists(reportedAt)' : ''}`,
        ExpressionAttributeNames: { '#status': 'status' },
        ExpressionAttributeValues: values,
      },
    },
  ];

  const event = (status: DeliveryEventStatus, failureCode?: string) => ({
    Put: {
      TableName: tableName,
      Item: {
        ...keys.deliveryEvent(dispatch.dispatchId, status),
        ...indexKeys.deliveryEventByPhone(dispatch.workspaceId, dispatch.to, change.occurredAt, dispatch.dispatchId, status),
        entity: 'deliveryEvent',
        dispatchId: dispatch.dispatchId,
        workspaceId: dispatch.workspaceId,
        phone: dispatch.to,
        status,
        occurredAt: change.occurredAt,
        ...(failureCode ? { failureCode } : {}),
      },
    },
  });

  // The conversation shows activity: its messages' statuses are read live, its updatedAt moves here.
  items.push({
    Update: {
      TableName: tableName,
      Key: keys.conversation(dispatch.workspaceId, dispatch.conversationId),
      UpdateExpression: 'SET updatedAt = :now',
      ExpressionAttributeValues: { ':now': now },
    },
  });
  if (firstReport) {
    items.push(event('ACCEPTED'), ...reportItems(dispatch, tableName, 1));
  } else if (dispatch.reportedAt && !countsAsSent(change.to)) {
    // A late failure after sent: reports count only SENT or DELIVERED, so take it back out.
    items.push(...reportItems(dispatch, tableName, -1));
  }
  if (change.event && !(change.event === 'ACCEPTED' && firstReport)) items.push(event(change.event, change.failureCode));
  return items;
}

/**
 * Tag links and rollups of a dispatch that now counts as sent (`sign` 1), or no longer does
 * (`sign` −1: its links deleted and every count taken back).
 */
function reportItems(dispatch: Dispatch, tableName: string, sign: 1 | -1) {
  const day = wibDay(new Date(dispatch.createdAt));
  const dayCount = {
    Update: {
      TableName: tableName,
      Key: keys.dayRollup(dispatch.workspaceId, day),
      UpdateExpression: 'SET entity = :entity ADD dispatchCount :one',
      ExpressionAttributeValues: { ':entity': 'dayRollup', ':one': sign },
    },
  };
  const link = (tag: string) =>
    sign === -1
      ? { Delete: { TableName: tableName, Key: keys.tagLink(dispatch.dispatchId, tag) } }
      : {
          Put: {
            TableName: tableName,
            Item: {
              ...keys.tagLink(dispatch.dispatchId, tag),
              ...indexKeys.tagLink(dispatch.workspaceId, tag, dispatch.createdAt, dispatch.dispatchId),
              entity: 'tagLink',
              workspaceId: dispatch.workspaceId,
              dispatchId: dispatch.dispatchId,
              trackingTag: tag,
              createdAt: dispatch.createdAt,
            },
          },
        };
  return [dayCount, ...dispatch.trackingTags.flatMap((tag) => [
    link(tag),
    {
      Update: {
        TableName: tableName,
        Key: keys.tagRollup(dispatch.workspaceId, tag, day, dispatch.templateId),
        UpdateExpression: 'SET entity = :entity, templateName = :name, trackingTag = :tag, #day = :day, templateId = :tpl ADD dispatchCount :one, credits :credits, amountRupiah :amount',
        ExpressionAttributeNames: { '#day': 'day' },
        ExpressionAttributeValues: {
          ':entity': 'tagRollup',
          ':name': dispatch.templateName,
          ':tag': tag,
          ':day': day,
          ':tpl': dispatch.templateId,
          ':one': sign,
          ':credits': sign * dispatch.creditCost,
          ':amount': sign * dispatch.amountRupiah,
        },
      },
    },
    {
      Update: {
        TableName: tableName,
        Key: keys.dayTagRollup(dispatch.workspaceId, day, tag),
        UpdateExpression: 'SET entity = :entity, trackingTag = :tag ADD dispatchCount :one',
        ExpressionAttributeValues: { ':entity': 'dayTagRollup', ':tag': tag, ':one': sign },
      },
    },
  ])];
}
