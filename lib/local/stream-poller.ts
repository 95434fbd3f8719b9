import { DescribeTableCommand, type DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DescribeStreamCommand, ExpiredIteratorException, GetRecordsCommand, GetShardIteratorCommand, TrimmedDataAccessException, type DynamoDBStreamsClient, type _Record } from '@aws-sdk/client-dynamodb-streams';
import type { Context, DynamoDBBatchResponse, DynamoDBRecord, DynamoDBStreamEvent } from 'aws-lambda';
import { isPublishable } from '../../lambdas/domain/webhooks/stream-filters';
import { lambdaContext } from './api-gateway-event';

export type StreamHandler = (event: DynamoDBStreamEvent, context: Context) => Promise<DynamoDBBatchResponse>;

export interface StreamPoller {
  stop(): Promise<void>;
}

/** How often the shards are read, and how often the stream is asked for new ones. */
const POLL_MS = 200;
const DISCOVER_EVERY_MS = 2_000;
/** A record the handler keeps failing is tried this often (the stack's event source retries alike), then reported. */
const MAX_TRIES = 5;

/** Where reading a shard goes on, and where to take it up again if its iterator is lost. */
interface ShardReader {
  iterator: string;
  /** The last record read from the shard; a new iterator starts after it. */
  lastSequenceNumber?: string;
  /** Where a new iterator starts when nothing has been read yet. */
  start: 'LATEST' | 'TRIM_HORIZON';
}

/**
 * Plays Lambda's DynamoDB Streams event source with the stack's filters (decisions 78, 89): reads
 * the table's stream on DynamoDB Local, shard by shard and in order, hands the outbox inserts and
 * dispatch changes to the handler in the same event shape, and tries the records it reports as
 * failed again. It starts at the stream's end: the runtime starts it before it takes any request.
 * The caller owns the streams client.
 */
export async function startStreamPoller(options: {
  dynamodb: DynamoDBClient;
  streams: DynamoDBStreamsClient;
  region: string;
  tableName: string;
  handler: StreamHandler;
  onError: (error: unknown) => void;
}): Promise<StreamPoller> {
  const { streams } = options;
  const { Table } = await options.dynamodb.send(new DescribeTableCommand({ TableName: options.tableName }));
  const streamArn = Table?.LatestStreamArn;
  if (!streamArn) throw new Error(`Table ${options.tableName} has no stream`);

  const iteratorAt = async (shardId: string, reader: Pick<ShardReader, 'lastSequenceNumber' | 'start'>) => {
    const { ShardIterator } = await streams.send(
      new GetShardIteratorCommand({
        StreamArn: streamArn,
        ShardId: shardId,
        ...(reader.lastSequenceNumber ? { ShardIteratorType: 'AFTER_SEQUENCE_NUMBER', SequenceNumber: reader.lastSequenceNumber } : { ShardIteratorType: reader.start }),
      }),
    );
    return ShardIterator;
  };

  /** Open shards; a closed shard is dropped, its children found by discovery. */
  const readers = new Map<string, ShardReader>();
  const seen = new Set<string>();
  const discover = async (start: ShardReader['start']) => {
    const { StreamDescription } = await streams.send(new DescribeStreamCommand({ StreamArn: streamArn }));
    for (const shard of StreamDescription?.Shards ?? []) {
      const shardId = shard.ShardId!;
      if (seen.has(shardId)) continue;
      seen.add(shardId);
      // A shard closed before we started has nothing for us.
      if (start === 'LATEST' && shard.SequenceNumberRange?.EndingSequenceNumber) continue;
      const iterator = await iteratorAt(shardId, { start });
      if (iterator) readers.set(shardId, { iterator, start });
    }
  };
  await discover('LATEST');

  /**
   * The shard's next records. A shard iterator is lost for good once it expires (15 minutes: a
   * laptop asleep) or points at records the stream no longer holds (trimmed; DynamoDB Local trims
   * under load): reading goes on from a new iterator after the last record read, as Lambda's event
   * source does, so nothing is read twice; and if that record is gone too, from the oldest the
   * shard still holds, since what came between is gone.
   */
  const read = async (shardId: string, reader: ShardReader) => {
    const positions: (() => Promise<string | undefined>)[] = [
      () => Promise.resolve(reader.iterator),
      () => iteratorAt(shardId, reader),
      () => iteratorAt(shardId, { start: 'TRIM_HORIZON' }),
    ];
    let lost: unknown;
    for (const position of positions) {
      try {
        const iterator = await position();
        if (!iterator) return { Records: [], NextShardIterator: undefined };
        return await streams.send(new GetRecordsCommand({ ShardIterator: iterator }));
      } catch (error) {
        if (!(error instanceof ExpiredIteratorException || error instanceof TrimmedDataAccessException)) throw error;
        lost = error;
      }
    }
    throw lost;
  };

  const invoke = async (records: DynamoDBRecord[]) => {
    let pending = records;
    for (let tries = 1; pending.length && tries <= MAX_TRIES; tries++) {
      try {
        const { batchItemFailures } = await options.handler({ Records: pending }, lambdaContext('publish-webhook-events', 60_000));
        const failed = new Set(batchItemFailures.map((failure) => failure.itemIdentifier));
        pending = pending.filter((record) => failed.has(record.dynamodb?.SequenceNumber ?? ''));
      } catch (error) {
        options.onError(error);
      }
      if (pending.length) await new Promise((resolve) => setTimeout(resolve, 200 * tries));
    }
    if (pending.length) options.onError(new Error(`Outbox publisher gave up on ${pending.length} stream record(s)`));
  };

  let stopped = false;
  const loop = (async () => {
    let discoveredAt = Date.now();
    while (!stopped) {
      try {
        if (Date.now() - discoveredAt > DISCOVER_EVERY_MS) {
          // Shards that open later start empty: read them from their beginning.
          await discover('TRIM_HORIZON');
          discoveredAt = Date.now();
        }
      } catch (error) {
        if (!stopped) options.onError(error);
      }
      // Each shard on its own: one that cannot be read now holds up no other.
      for (const [shardId, reader] of readers) {
        try {
          const { Records = [], NextShardIterator } = await read(shardId, reader);
          if (NextShardIterator) reader.iterator = NextShardIterator;
          else readers.delete(shardId);
          if (Records.length) reader.lastSequenceNumber = Records.at(-1)!.dynamodb!.SequenceNumber;
          const records = Records.map((record) => toLambdaRecord(record, streamArn, options.region)).filter(isPublishable);
          if (records.length) await invoke(records);
        } catch (error) {
          if (!stopped) options.onError(error);
        }
      }
      await new Promise((resolve) => setTimeout(resolve, POLL_MS));
    }
  })();

  return {
    async stop() {
      stopped = true;
      await loop;
    },
  };
}

/** A stream record as Lambda hands it over. The two SDKs type DynamoDB JSON apart; its content is the same. */
function toLambdaRecord(record: _Record, streamArn: string, region: string): DynamoDBRecord {
  return {
    eventID: record.eventID,
    eventName: record.eventName,
    eventVersion: record.eventVersion,
    eventSource: 'aws:dynamodb',
    awsRegion: region,
    eventSourceARN: streamArn,
    dynamodb: {
      ...(record.dynamodb as Omit<NonNullable<DynamoDBRecord['dynamodb']>, 'ApproximateCreationDateTime'>),
      ApproximateCreationDateTime: record.dynamodb?.ApproximateCreationDateTime && Math.floor(record.dynamodb.ApproximateCreationDateTime.getTime() / 1000),
    },
  };
}
