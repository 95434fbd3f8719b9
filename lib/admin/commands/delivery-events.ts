import { DescribeTableCommand, type AttributeValue } from '@aws-sdk/client-dynamodb';
import { DynamoDBStreamsClient, GetRecordsCommand, GetShardIteratorCommand, TrimmedDataAccessException, type _Record } from '@aws-sdk/client-dynamodb-streams';
import { unmarshall } from '@aws-sdk/util-dynamodb';
import * as z from 'zod';
import { deliveryEventsOfChange } from '../../../lambdas/domain/delivery/delivery-event-projection';
import { providerMessageOfChange } from '../../../lambdas/domain/delivery/provider-message';
import { isDispatchChange } from '../../../lambdas/domain/webhooks/stream-filters';
import { batchPut } from '../../../lambdas/shared/batch-write';
import type { Store } from '../../../lambdas/shared/store';
import { AdminError, defineCommand } from '../command';

/** A stream sequence number: digits, kept as given (the stream wants its leading zeros), compared as a number. */
const sequenceNumber = () => z.string().trim().regex(/^\d{1,64}$/, 'takes a stream sequence number (digits)');

/**
 * The records of one shard of the table's stream from `from` to `to`, both included, as the
 * stream still holds them (24 hours).
 */
async function shardRecords(store: Store, shardId: string, from: string, to: string): Promise<_Record[]> {
  const { Table } = await store.db.send(new DescribeTableCommand({ TableName: store.tableName }));
  const streamArn = Table?.LatestStreamArn;
  if (!streamArn) throw new AdminError('no_stream', `Table ${store.tableName} has no stream`);
  // The table's own client configuration (region, endpoint, credentials) reads its stream.
  const { region, endpoint, credentials } = store.db.config;
  const streams = new DynamoDBStreamsClient({ region, credentials, ...(endpoint ? { endpoint } : {}) });
  try {
    const records: _Record[] = [];
    let iterator = (await streams.send(new GetShardIteratorCommand({ StreamArn: streamArn, ShardId: shardId, ShardIteratorType: 'AT_SEQUENCE_NUMBER', SequenceNumber: from }))).ShardIterator;
    while (iterator) {
      const { Records = [], NextShardIterator } = await streams.send(new GetRecordsCommand({ ShardIterator: iterator }));
      const within = Records.filter((record) => BigInt(record.dynamodb?.SequenceNumber ?? '0') <= BigInt(to));
      records.push(...within);
      // An open shard answers an empty page at its end: the batch is read by then.
      iterator = Records.length && within.length === Records.length ? NextShardIterator : undefined;
    }
    return records;
  } catch (error) {
    if (error instanceof TrimmedDataAccessException) throw new AdminError('stream_trimmed', `The stream no longer holds records from ${from} in shard ${shardId} (it keeps them 24 hours)`);
    throw error;
  } finally {
    streams.destroy();
  }
}

export const deliveryEventCommands = [
  defineCommand({
    name: 'delivery-events redrive',
    synopsis: '--shard SHARD_ID --from SEQUENCE_NUMBER --to SEQUENCE_NUMBER',
    summary:
      'Writes the delivery events and wamid items of a stream batch the stream consumer gave up on (a stream-failure queue message’s shardId, startSequenceNumber and endSequenceNumber), from the table’s stream, which keeps records 24 hours. Safe to repeat.',
    options: z.object({ shard: z.string().trim().min(1, 'must not be empty'), from: sequenceNumber(), to: sequenceNumber() }),
    async run({ shard, from, to }, { store }) {
      if (BigInt(from) > BigInt(to)) throw new AdminError('invalid_range', `--from ${from} comes after --to ${to}`);
      const records = await shardRecords(store, shard, from, to);
      const changes = records.filter((record) => isDispatchChange(record) && record.dynamodb?.NewImage);
      const images = changes.map((record) => unmarshall(record.dynamodb!.NewImage! as Record<string, AttributeValue>));
      const events = images.flatMap(deliveryEventsOfChange);
      // The wamid items the changes made ride with the events in the same batch (decision 114).
      const wamids = images.flatMap(providerMessageOfChange);
      await batchPut(store, [...events, ...wamids]);
      const data = { records: records.length, dispatchChanges: changes.length, events: events.length, wamids: wamids.length };
      return { data, lines: [`Read ${data.records} stream records (${data.dispatchChanges} dispatch changes) and wrote their ${data.events} delivery events and ${data.wamids} wamid items.`] };
    },
  }),
];
