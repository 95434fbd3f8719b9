import { GetCommand, TransactWriteCommand } from '@aws-sdk/lib-dynamodb';
import { indexKeys, keys } from '../../shared/table';
import { defaultStore } from '../../shared/default-store';
import type { Store } from '../../shared/store';
import type { Dispatch } from './dispatch';

const DISPATCH_FIELDS = [
  'dispatchId', 'workspaceId', 'channel', 'to', 'contactName', 'templateId', 'templateName', 'templateVersionId', 'providerTemplateName',
  'language', 'variables', 'renderedText', 'bodyParameters', 'tagIds', 'trackingTags', 'source', 'apiClient', 'status', 'creditCost', 'amountRupiah',
  'conversationId', 'createdAt', 'updatedAt', 'sentAt', 'deliveredAt', 'failureCode',
] as const satisfies readonly (keyof Dispatch)[];

/**
 * The stored item: the dispatch, its key, its send-check and pending index entries. Null fields
 * are left out rather than stored as NULL, which `if_not_exists` would take as set.
 */
export function dispatchItem(dispatch: Dispatch) {
  const present = Object.fromEntries(Object.entries(dispatch).filter(([, value]) => value !== null));
  return {
    ...keys.dispatch(dispatch.dispatchId),
    ...indexKeys.dispatchSendCheck(dispatch.workspaceId, dispatch.to, dispatch.templateId, dispatch.createdAt),
    ...indexKeys.pendingDispatch(dispatch.dispatchId, dispatch.createdAt),
    entity: 'dispatch',
    ...present,
  };
}

const OPTIONAL_FIELDS = ['attempts', 'attemptStartedAt', 'providerMessageId', 'reportedAt'] as const satisfies readonly (keyof Dispatch)[];

/** A stored item as a Dispatch: nullable fields null when absent, bookkeeping fields left out. */
export function toDispatch(item: Record<string, unknown>): Dispatch {
  const dispatch = Object.fromEntries(DISPATCH_FIELDS.map((field) => [field, item[field] ?? null]));
  for (const field of OPTIONAL_FIELDS) if (item[field] !== undefined && item[field] !== null) dispatch[field] = item[field];
  return dispatch as unknown as Dispatch;
}

/** A workspace's dispatch; another workspace's id reads as missing. */
export async function getDispatch(workspaceId: string, dispatchId: string, store: Store = defaultStore()): Promise<Dispatch | undefined> {
  const dispatch = await getDispatchById(dispatchId, store);
  return dispatch?.workspaceId === workspaceId ? dispatch : undefined;
}

/** Any workspace's dispatch: for the delivery path, which is told ids by the queue and the provider. */
export async function getDispatchById(dispatchId: string, store: Store = defaultStore(), consistent = false): Promise<Dispatch | undefined> {
  const { Item } = await store.db.send(new GetCommand({ TableName: store.tableName, Key: keys.dispatch(dispatchId), ConsistentRead: consistent }));
  return Item ? toDispatch(Item) : undefined;
}

/**
 * The queue refused the message (docs/api.md#send-a-message): the dispatch becomes `failed` with
 * `enqueue_failed`, and the idempotency key and daily-send marker are released so a retry can
 * succeed. Only a dispatch still `queued` is touched.
 */
export async function failUnqueuedDispatch(
  dispatch: Pick<Dispatch, 'dispatchId' | 'workspaceId'>,
  release: { idempotencyKey?: string; dailySendKey?: { pk: string; sk: string } },
  now: Date,
  store: Store = defaultStore(),
): Promise<void> {
  await store.db.send(
    new TransactWriteCommand({
      TransactItems: [
        {
          Update: {
            TableName: store.tableName,
            Key: keys.dispatch(dispatch.dispatchId),
            UpdateExpression: 'SET #status = :failed, failureCode = :code, updatedAt = :now REMOVE gsi2pk, gsi2sk',
            ConditionExpression: '#status = :queued',
            ExpressionAttributeNames: { '#status': 'status' },
            ExpressionAttributeValues: { ':failed': 'failed', ':queued': 'queued', ':code': 'enqueue_failed', ':now': now.toISOString() },
          },
        },
        ...(release.idempotencyKey ? [{ Delete: { TableName: store.tableName, Key: keys.idempotency(dispatch.workspaceId, release.idempotencyKey) } }] : []),
        ...(release.dailySendKey ? [{ Delete: { TableName: store.tableName, Key: release.dailySendKey } }] : []),
      ],
    }),
  );
}
