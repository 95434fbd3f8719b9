import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { RateLimitedError } from '../../shared/errors';
import { keys } from '../../shared/table';
import { defaultStore } from '../../shared/default-store';
import type { Store } from '../../shared/store';

/**
 * Takes one send from the workspace's allowance for the current minute (a fixed window), or
 * throws 429 with the seconds until the next window. This is a plain conditional write, not part
 * of the send transaction: every send of a workspace touches this item, and concurrent
 * transactions on one item cancel each other (docs/decisions.md).
 */
export async function takeSendAllowance(workspaceId: string, perMinute: number, now: Date, store: Store = defaultStore()): Promise<void> {
  const minute = Math.floor(now.getTime() / 60_000);
  try {
    await store.db.send(
      new UpdateCommand({
        TableName: store.tableName,
        Key: keys.sendRate(workspaceId, minute),
        UpdateExpression: 'ADD #count :one SET entity = :entity, #ttl = :ttl',
        ConditionExpression: 'attribute_not_exists(#count) OR #count < :limit',
        ExpressionAttributeNames: { '#count': 'count', '#ttl': 'ttl' },
        ExpressionAttributeValues: { ':one': 1, ':limit': perMinute, ':entity': 'sendRate', ':ttl': (minute + 2) * 60 },
      }),
    );
  } catch (error) {
    if ((error as Error).name !== 'ConditionalCheckFailedException') throw error;
    throw new RateLimitedError(Math.max(1, Math.ceil(((minute + 1) * 60_000 - now.getTime()) / 1000)));
  }
}
