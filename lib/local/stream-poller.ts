import { DescribeTableCommand, type DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DescribeStreamCommand, ExpiredIteratorException, GetRecordsCommand, GetShardIteratorCommand, TrimmedDataAccessException, type DynamoDBStreamsClient, type _Record } from '@aws-sdk/client-dynamodb-streams';
import type { Context, DynamoDBBatchResponse, DynamoDBRecord, DynamoDBStreamEvent } from 'aws-lambda';
import type { ReportsWindowEvent, ReportsWindowResponse } from '../../lambdas/handlers/project-reports';
import { streamConsumerSettings } from '../../lambdas/shared/stream-consumer-settings';
import { lambdaContext } from './api-gateway-event';

export type StreamHandler = (event: DynamoDBStreamEvent, context: Context) => Promise<DynamoDBBatchResponse>;
export type WindowHandler = (event: ReportsWindowEvent, context: Context) => Promise<ReportsWindowResponse>;

/** What the poller hands records to: a handler that reports failed records, or one that sums over a tumbling window. */
export type StreamConsumer = { handler: StreamHandler } | { windowSeconds: number; windowHandler: WindowHandler };

export interface StreamPoller {
  stop(): Promise<void>;
}

/** How often the shards are read, and how often the stream is asked for new ones. */
const POLL_MS = 200;
const DISCOVER_EVERY_MS = 2_000;
/** A record the handler keeps failing is tried as often as the stack's event source tries it, then reported. */
const MAX_TRIES = 1 + streamConsumerSettings.retryAttempts;
/** Lambda does not document its pause between a stream batch's tries; here 200 ms more each time, up to 2 s: about 11 s in all. */
const retryPause = (tries: number) => Math.min(2_000, 200 * tries);

/** A shard's tumbling window while it is open: its start (ms) and the state its invocations returned. */
interface OpenWindow {
  start: number;
  state: ReportsWindowResponse['state'];
}

/** Lambda names a window's bounds to the second. */
const windowInstant = (ms: number) => new Date(ms).toISOString().replace(/\.\d{3}Z$/, 'Z');

/** Where reading a shard goes on. */
interface ShardReader {
  /** Absent once lost: the next read takes a new one. */
  iterator?: string;
  /** The last record read from the shard; a new iterator starts after it. */
  lastSequenceNumber?: string;
}

/** Why an iterator cannot be used again: it expired (15 minutes), or the records it points at were trimmed. */
const isLostIterator = (error: unknown) => error instanceof ExpiredIteratorException || error instanceof TrimmedDataAccessException;

/**
 * Plays one of Lambda's DynamoDB Streams event sources with the stack's filter (`filter`, the
 * test the stack's filter criteria make): reads the table's stream on DynamoDB Local, shard by
 * shard and in order, and hands the records that pass to the consumer in the same event shape.
 * A handler's failed records are tried again (the publisher, decisions 78, 89). A windowed
 * consumer (the report projection, decision 113) is handed each shard's records with the state
 * its window's invocations so far returned, a window lasting `windowSeconds` of the clock; the
 * first read after a window ended makes its final invocation first, and so does stopping. A
 * windowed invocation that fails is tried again with the same state until it succeeds (or the
 * poller stops), holding its shard back as the stack's event source does, without a retry limit.
 * Records written before it started are not its own: the runtime starts it before it takes any
 * request. The caller owns the streams client.
 *
 * A shard iterator can be lost: it expires after 15 minutes (a laptop asleep), it points at records
 * the stream no longer holds (DynamoDB Local trims under load), and DynamoDB Local sometimes answers
 * an open shard's read with no next iterator at all. Reading then goes on from a new iterator after
 * the last record read, as Lambda's event source does, so nothing is read twice; or, if nothing was
 * read yet or that record is gone too, from the oldest record the shard holds. So that the oldest
 * is never one from before the poller started, it starts by reading each shard to its end without
 * handing anything on, which gives it the last record's sequence number (DynamoDB Local's stream
 * records tell their time to the minute only). Only a shard DynamoDB reports closed is dropped.
 */
export async function startStreamPoller(options: {
  dynamodb: DynamoDBClient;
  streams: DynamoDBStreamsClient;
  region: string;
  tableName: string;
  /** The function's name, for its invocations' context. */
  functionName: string;
  filter: (record: DynamoDBRecord) => boolean;
  consumer: StreamConsumer;
  onError: (error: unknown) => void;
}): Promise<StreamPoller> {
  const { consumer, functionName } = options;
  const { streams } = options;
  const { Table } = await options.dynamodb.send(new DescribeTableCommand({ TableName: options.tableName }));
  const streamArn = Table?.LatestStreamArn;
  if (!streamArn) throw new Error(`Table ${options.tableName} has no stream`);

  const iteratorAfter = async (shardId: string, sequenceNumber: string | undefined) => {
    const position = sequenceNumber ? { ShardIteratorType: 'AFTER_SEQUENCE_NUMBER' as const, SequenceNumber: sequenceNumber } : { ShardIteratorType: 'TRIM_HORIZON' as const };
    return (await streams.send(new GetShardIteratorCommand({ StreamArn: streamArn, ShardId: shardId, ...position }))).ShardIterator;
  };

  /** A reader at the shard's end, past what it held before the poller started. */
  const atEnd = async (shardId: string): Promise<ShardReader> => {
    const reader: ShardReader = { iterator: await iteratorAfter(shardId, undefined) };
    while (reader.iterator) {
      const { Records = [], NextShardIterator } = await streams.send(new GetRecordsCommand({ ShardIterator: reader.iterator }));
      reader.iterator = NextShardIterator;
      if (!Records.length) break;
      reader.lastSequenceNumber = Records.at(-1)!.dynamodb!.SequenceNumber;
    }
    return reader;
  };

  const readers = new Map<string, ShardReader>();
  const closed = new Set<string>();
  const describe = async () => (await streams.send(new DescribeStreamCommand({ StreamArn: streamArn }))).StreamDescription?.Shards ?? [];
  /** Shards there at the start are read from their end; those that open later, from their beginning. */
  const discover = async (starting: boolean) => {
    for (const shard of await describe()) {
      const shardId = shard.ShardId!;
      if (readers.has(shardId) || closed.has(shardId)) continue;
      readers.set(shardId, starting ? await atEnd(shardId) : {});
    }
  };
  await discover(true);

  /** The shard's next records, from its iterator or, that lost, from a new one (see above). */
  const read = async (shardId: string, reader: ShardReader) => {
    const positions = [
      ...(reader.iterator ? [() => Promise.resolve(reader.iterator)] : []),
      ...(reader.lastSequenceNumber ? [() => iteratorAfter(shardId, reader.lastSequenceNumber)] : []),
      () => iteratorAfter(shardId, undefined),
    ];
    let lost: unknown;
    for (const position of positions) {
      try {
        const iterator = await position();
        if (!iterator) return { Records: [], NextShardIterator: undefined };
        return await streams.send(new GetRecordsCommand({ ShardIterator: iterator }));
      } catch (error) {
        if (!isLostIterator(error)) throw error;
        lost = error;
      }
    }
    throw lost;
  };

  /** No next iterator: the end of a closed shard, or DynamoDB Local losing an open one's. */
  const endOfShard = async (shardId: string) => {
    const shard = (await describe()).find((candidate) => candidate.ShardId === shardId);
    if (!shard || shard.SequenceNumberRange?.EndingSequenceNumber) {
      readers.delete(shardId);
      closed.add(shardId);
    }
  };

  const invoke = async (handler: StreamHandler, records: DynamoDBRecord[]) => {
    let pending = records;
    for (let tries = 1; pending.length && tries <= MAX_TRIES; tries++) {
      try {
        const { batchItemFailures } = await handler({ Records: pending }, lambdaContext(functionName, 60_000));
        const failed = new Set(batchItemFailures.map((failure) => failure.itemIdentifier));
        pending = pending.filter((record) => failed.has(record.dynamodb?.SequenceNumber ?? ''));
      } catch (error) {
        options.onError(error);
      }
      if (pending.length) await new Promise((resolve) => setTimeout(resolve, retryPause(tries)));
    }
    if (pending.length) options.onError(new Error(`${functionName} gave up on ${pending.length} stream record(s)`));
  };

  const windows = new Map<string, OpenWindow>();
  /** One windowed invocation, tried with the same state until it succeeds: its answer's state. */
  const invokeWindow = async (windowed: Extract<StreamConsumer, { windowSeconds: number }>, shardId: string, open: OpenWindow, records: DynamoDBRecord[], final: boolean) => {
    const event: ReportsWindowEvent = {
      Records: records,
      window: { start: windowInstant(open.start), end: windowInstant(open.start + windowed.windowSeconds * 1000) },
      state: open.state,
      shardId,
      eventSourceARN: streamArn,
      isFinalInvokeForWindow: final,
      isWindowTerminatedEarly: false,
    };
    for (let tries = 1; ; tries++) {
      try {
        const answer = await windowed.windowHandler(structuredClone(event), lambdaContext(functionName, 60_000));
        if (!answer || typeof answer.state !== 'object') throw new Error(`${functionName} answered without a state`);
        return answer.state;
      } catch (error) {
        if (stopped && tries >= MAX_TRIES) throw error;
        if (tries === MAX_TRIES) options.onError(error);
        await new Promise((resolve) => setTimeout(resolve, retryPause(tries)));
      }
    }
  };
  /** Ends the shard's window if it is over (or `now` is undefined: stopping), then hands it the records. */
  const handToWindow = async (windowed: Extract<StreamConsumer, { windowSeconds: number }>, shardId: string, records: DynamoDBRecord[], now: number | undefined) => {
    const windowMs = windowed.windowSeconds * 1000;
    const open = windows.get(shardId);
    if (open && (now === undefined || now >= open.start + windowMs)) {
      await invokeWindow(windowed, shardId, open, [], true);
      windows.delete(shardId);
    }
    if (!records.length || now === undefined) return;
    const current = windows.get(shardId) ?? { start: Math.floor(now / windowMs) * windowMs, state: {} };
    windows.set(shardId, current);
    current.state = await invokeWindow(windowed, shardId, current, records, false);
  };
  const handOver = async (shardId: string, records: DynamoDBRecord[]) => {
    if ('windowHandler' in consumer) await handToWindow(consumer, shardId, records, Date.now());
    else if (records.length) await invoke(consumer.handler, records);
  };

  let stopped = false;
  const loop = (async () => {
    let discoveredAt = Date.now();
    while (!stopped) {
      try {
        if (Date.now() - discoveredAt > DISCOVER_EVERY_MS) {
          await discover(false);
          discoveredAt = Date.now();
        }
      } catch (error) {
        if (!stopped) options.onError(error);
      }
      // Each shard on its own: one that cannot be read now holds up no other.
      for (const [shardId, reader] of readers) {
        try {
          const { Records = [], NextShardIterator } = await read(shardId, reader);
          reader.iterator = NextShardIterator;
          if (Records.length) reader.lastSequenceNumber = Records.at(-1)!.dynamodb!.SequenceNumber;
          if (!NextShardIterator) await endOfShard(shardId);
          await handOver(shardId, Records.map((record) => toLambdaRecord(record, streamArn, options.region)).filter(options.filter));
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
      // Lambda ends a window when its time is up, whatever happens to the poller: so does stopping.
      if ('windowHandler' in consumer) {
        for (const shardId of [...windows.keys()]) await handToWindow(consumer, shardId, [], undefined).catch(options.onError);
      }
    },
  };
}

/** A stream record as Lambda hands it over. The two SDKs type DynamoDB JSON apart; its content is the same. */
export function toLambdaRecord(record: _Record, streamArn: string, region: string): DynamoDBRecord {
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
