import { GetCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import * as z from '../../shared/zod';
import type { Store } from '../../shared/store';
import { keys } from '../../shared/table';

/**
 * `unknown` in two steps (decision 163): the first reconciler run that finds a dead attempt with
 * nothing to show whether the provider took it notes the moment, and only a run a while after that
 * settles it. A table outage longer than the attempt's wait for `unknown` ends with the reconciler
 * and the attempt's carried release (decision 161) racing for the dispatch: the release, a
 * WhatsApp "later" or a refused token, means the message was never sent, and an `unknown` written
 * first would keep it from ever being sent. The note gives the release the time it needs.
 *
 * One item per dispatch and attempt, under the dispatch's key, so a new attempt starts unnoted; it
 * lives a day, long past the wait it times.
 */

const NOTE_TTL_SECONDS = 86_400;

const noteItem = z.object({ notedAt: z.string() });

/** Notes that the attempt started at `attemptStartedAt` is due `unknown`, unless noted before: the first moment noted. */
export async function noteDeadAttempt(dispatchId: string, attemptStartedAt: string, now: Date, store: Store): Promise<string> {
  const { Attributes } = await store.db.send(
    new UpdateCommand({
      TableName: store.tableName,
      Key: keys.deadAttemptNote(dispatchId, attemptStartedAt),
      UpdateExpression: 'SET entity = :entity, notedAt = if_not_exists(notedAt, :now), #ttl = if_not_exists(#ttl, :ttl)',
      ExpressionAttributeNames: { '#ttl': 'ttl' },
      ExpressionAttributeValues: { ':entity': 'deadAttemptNote', ':now': now.toISOString(), ':ttl': Math.floor(now.getTime() / 1000) + NOTE_TTL_SECONDS },
      ReturnValues: 'ALL_NEW',
    }),
  );
  return noteItem.parse(Attributes).notedAt;
}

/** When the attempt was first noted due `unknown`, if it has been. */
export async function deadAttemptNotedAt(dispatchId: string, attemptStartedAt: string, store: Store): Promise<string | undefined> {
  const { Item } = await store.db.send(new GetCommand({ TableName: store.tableName, Key: keys.deadAttemptNote(dispatchId, attemptStartedAt) }));
  return Item ? noteItem.parse(Item).notedAt : undefined;
}
