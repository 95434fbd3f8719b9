import { DescribeTableCommand, type AttributeValue } from '@aws-sdk/client-dynamodb';
import { DynamoDBStreamsClient, GetRecordsCommand, GetShardIteratorCommand, TrimmedDataAccessException, type _Record } from '@aws-sdk/client-dynamodb-streams';
import { unmarshall } from '@aws-sdk/util-dynamodb';
import * as z from 'zod';
import { deliveryEventsOfChange } from '../../../lambdas/domain/delivery/delivery-event-projection';
import { eventTimes } from '../../../lambdas/domain/delivery/transitions';
import { EVENT_MOVED, type MovableEvent } from '../../../lambdas/domain/messages/dispatch';
import { providerMessageOfChange } from '../../../lambdas/domain/delivery/provider-message';
import { isDispatchChange } from '../../../lambdas/domain/webhooks/stream-filters';
import { batchPut, batchWrite, lastPerKey, type BatchWriteRequest } from '../../../lambdas/shared/batch-write';
import { mapWithConcurrency } from '../../../lambdas/shared/concurrency';
import { transactWriteThroughConflicts } from '../../../lambdas/shared/writes';
import { keys } from '../../../lambdas/shared/table';
import { dailySendReleaseOfFailure, releaseFailedDailySends } from '../../../lambdas/domain/messages/daily-send';
import type { Store } from '../../../lambdas/shared/store';
import { AdminError, defineCommand, option } from '../command';

/** A stream sequence number: digits, kept as given (the stream wants its leading zeros), compared as a number. */
const sequenceNumber = () => z.string().trim().regex(/^\d{1,64}$/, 'takes a stream sequence number (digits)');

/**
 * GetRecords answers empty pages on the way to records, not only at an open shard's end ("it might
 * take multiple calls to get to a portion of the shard that contains stream records"): this many in
 * a row, and the batch's last record not read, is a failure to report, not a batch to write.
 */
const MAX_EMPTY_PAGES = 50;

/**
 * The stream a batch is read from: the one the operator names (a stream-failure message's
 * `streamArn`), or else the table's latest. A stream replaced since (its view type changed) is
 * disabled but still holds its records 24 hours under its own ARN, which the latest no longer is.
 * Another table's stream is refused: its changes would be written as this table's events.
 */
async function streamOf(store: Store, named: string | undefined): Promise<string> {
  const { Table } = await store.db.send(new DescribeTableCommand({ TableName: store.tableName }));
  if (named === undefined) {
    if (!Table?.LatestStreamArn) throw new AdminError('no_stream', `Table ${store.tableName} has no stream`);
    return Table.LatestStreamArn;
  }
  // DescribeTable always answers the table's ARN; each of its streams' ARNs is that and `/stream/<label>`.
  const streams = `${Table!.TableArn!}/stream/`;
  if (!named.startsWith(streams)) throw new AdminError('not_table_stream', `--stream-arn ${named} is not a stream of table ${store.tableName} (its streams start with ${streams})`, 2);
  return named;
}

/**
 * The records of one shard of the stream from `from` to `to`, both included, as the stream still
 * holds them (24 hours). Read until the record at `to` (or one past it); a shard that ends, or
 * keeps answering empty pages, before it is an error, so a batch is written whole or not.
 */
async function shardRecords(store: Store, streamArn: string, shardId: string, from: string, to: string): Promise<_Record[]> {
  // The table's own client configuration (region, endpoint, credentials) reads its stream.
  const { region, endpoint, credentials } = store.db.config;
  const streams = new DynamoDBStreamsClient({ region, credentials, ...(endpoint ? { endpoint } : {}) });
  const last = BigInt(to);
  const sequenceOf = (record: _Record) => BigInt(record.dynamodb?.SequenceNumber ?? '0');
  try {
    const records: _Record[] = [];
    let iterator = (await streams.send(new GetShardIteratorCommand({ StreamArn: streamArn, ShardId: shardId, ShardIteratorType: 'AT_SEQUENCE_NUMBER', SequenceNumber: from }))).ShardIterator;
    for (let emptyPages = 0; iterator && emptyPages <= MAX_EMPTY_PAGES; ) {
      const { Records = [], NextShardIterator } = await streams.send(new GetRecordsCommand({ ShardIterator: iterator }));
      records.push(...Records.filter((record) => sequenceOf(record) <= last));
      if (Records.some((record) => sequenceOf(record) >= last)) return records;
      emptyPages = Records.length ? 0 : emptyPages + 1;
      iterator = NextShardIterator;
    }
    throw new AdminError('batch_not_reached', `Read ${records.length} stream records of shard ${shardId} without reaching --to ${to}, so nothing was written: check the range, or run it again`);
  } catch (error) {
    if (error instanceof TrimmedDataAccessException) throw new AdminError('stream_trimmed', `The stream no longer holds records from ${from} in shard ${shardId} (it keeps them 24 hours)`);
    throw error;
  } finally {
    streams.destroy();
  }
}

/**
 * A batch redriven after later ones were written: a DELIVERED or ACCEPTED event is put only while
 * its dispatch holds that time. A later `delivered` may have moved DELIVERED from the time an
 * earlier `read` set (decision 200), a later `sent` ACCEPTED from the time a `delivered` or `read`
 * set (decision 236), and that correction's record, written by the consumer, deleted the event
 * there; put back from the older record, it would list the message delivered, or accepted, twice.
 * A read of the dispatch before the put is not enough: the correction may land between the two, so
 * the put is a transaction with a check of the dispatch's time, and one the check refuses is left
 * to the correction's own record. Answers how many events were put.
 */
async function writeEvents(writes: BatchWriteRequest[], store: Store): Promise<number> {
  const isMovable = (write: BatchWriteRequest): write is { put: Record<string, unknown> & { status: MovableEvent } } => 'put' in write && Object.hasOwn(EVENT_MOVED, String(write.put.status));
  // Of two writes of one key only the last is made, as in the consumer's batch (a correction's delete after the read's put).
  const distinct = lastPerKey(writes);
  await batchWrite(store, distinct.filter((write) => !isMovable(write)));
  const movable = await mapWithConcurrency(distinct.filter(isMovable), 4, async ({ put }) => {
    const result = await transactWriteThroughConflicts(store, {
      event: { Put: { Item: put } },
      held: { ConditionCheck: { Key: keys.dispatch(String(put.dispatchId)), ConditionExpression: `${eventTimes[put.status]} = :at`, ExpressionAttributeValues: { ':at': put.occurredAt } } },
    });
    if (!result.committed && result.refused.held !== 'ConditionalCheckFailed') throw new AdminError('event_not_written', `The ${put.status} event of dispatch ${String(put.dispatchId)} was refused (${JSON.stringify(result.refused)}): run the redrive again`);
    return result.committed;
  });
  return distinct.filter((write) => 'put' in write && !isMovable(write)).length + movable.filter(Boolean).length;
}

export const deliveryEventCommands = [
  defineCommand({
    name: 'delivery-events redrive',
    synopsis: '--shard SHARD_ID --from SEQUENCE_NUMBER --to SEQUENCE_NUMBER [--stream-arn STREAM_ARN]',
    summary:
      'Writes the delivery events and wamid items of a stream batch, and gives back the day’s send of its failed dispatches, the stream consumer gave up on (a stream-failure queue message’s shardId, startSequenceNumber, endSequenceNumber and streamArn), from the table’s stream (by default its latest), which keeps records 24 hours. Safe to repeat.',
    options: z.object({ shard: z.string().trim().min(1, 'must not be empty'), from: sequenceNumber(), to: sequenceNumber(), 'stream-arn': option.text().optional() }),
    async run({ shard, from, to, 'stream-arn': named }, { store }) {
      if (BigInt(from) > BigInt(to)) throw new AdminError('invalid_range', `--from ${from} comes after --to ${to}`, 2);
      const records = await shardRecords(store, await streamOf(store, named), shard, from, to);
      const changes = records.filter((record) => isDispatchChange(record) && record.dynamodb?.NewImage);
      const images = changes.map((record) => unmarshall(record.dynamodb!.NewImage! as Record<string, AttributeValue>));
      // With an event's put, the delete of the event a correction moved (decisions 200, 236);
      // the wamid items the changes made ride with the events (decision 114).
      const wamids = images.flatMap(providerMessageOfChange);
      const events = await writeEvents(images.flatMap(deliveryEventsOfChange), store);
      await batchPut(store, wamids);
      // And what the consumer gives back for a change that failed its dispatch: the day's send it took (decision 192).
      const releases = images.map(dailySendReleaseOfFailure).filter((release) => release !== undefined);
      const failed = (await releaseFailedDailySends(releases, store)).find((outcome) => outcome.status === 'rejected');
      if (failed) throw failed.reason;
      const data = { records: records.length, dispatchChanges: changes.length, events, wamids: wamids.length, dailySendReleases: releases.length };
      return {
        data,
        lines: [`Read ${data.records} stream records (${data.dispatchChanges} dispatch changes) and wrote their ${data.events} delivery events and ${data.wamids} wamid items, and gave back the day's send of ${data.dailySendReleases} failed ones.`],
      };
    },
  }),
];
