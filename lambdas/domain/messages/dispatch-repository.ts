import { GetCommand, TransactWriteCommand } from '@aws-sdk/lib-dynamodb';
import { indexKeys, keys } from '../../shared/table';
import { defaultStore } from '../../shared/default-store';
import type { Store } from '../../shared/store';
import type { Dispatch } from './dispatch';

const DISPATCH_FIELDS = [
  'dispatchId', 'workspaceId', 'channel', 'to', 'contactName', 'templateId', 'templateName', 'templateVersionId', 'providerTemplateName',
  'language', 'variables', 'renderedText', 'tagIds', 'trackingTags', 'source', 'apiClient', 'status', 'creditCost', 'amountRupiah',
  'conversationId', 'createdAt', 'updatedAt', 'sentAt', 'deliveredAt', 'failureCode',
] as const satisfies readonly (keyof Dispatch)[];

/** The stored item: the dispatch, its key, and its send-check index entry. */
export function dispatchItem(dispatch: Dispatch) {
  return {
    ...keys.dispatch(dispatch.dispatchId),
    ...indexKeys.dispatchSendCheck(dispatch.workspaceId, dispatch.to, dispatch.templateId, dispatch.createdAt),
    entity: 'dispatch',
    ...dispatch,
  };
}

/** A workspace's dispatch; another workspace's id reads as missing. */
export async function getDispatch(workspaceId: string, dispatchId: string, store: Store = defaultStore()): Promise<Dispatch | undefined> {
  const { Item } = await store.db.send(new GetCommand({ TableName: store.tableName, Key: keys.dispatch(dispatchId) }));
  if (!Item || Item.workspaceId !== workspaceId) return undefined;
  return Object.fromEntries(DISPATCH_FIELDS.map((field) => [field, Item[field] ?? null])) as unknown as Dispatch;
}

/**
 * The queue refused the message (DESIGN §3.7): the dispatch becomes `failed` with
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
            UpdateExpression: 'SET #status = :failed, failureCode = :code, updatedAt = :now',
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
