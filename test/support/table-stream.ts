import { DescribeTableCommand, DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DescribeStreamCommand, DynamoDBStreamsClient, ExpiredIteratorException, GetRecordsCommand, GetShardIteratorCommand, type _Record } from '@aws-sdk/client-dynamodb-streams';
import type { Store } from '../../lambdas/shared/store';

export type HeldRecord = { streamArn: string; shardId: string; record: _Record };

/**
 * What this test file has read of each table's stream (by table name): its records in the order
 * read, and where each shard still being read starts its next read.
 */
const reads = new Map<string, { streamArn: string; held: HeldRecord[]; next: Map<string, string | undefined>; shards: Set<string> }>();

/**
 * Every record the table's stream on DynamoDB Local holds so far, in the order read (each shard's
 * in its order), with its stream and shard. Only what came since the last call is read: one
 * GetRecords a shard from the iterator the last read returned, where reading from the stream's
 * start took DynamoDB Local a quarter of a second at 500 records, and a file may ask a thousand
 * times. A shard read to its end is done with, and the shards that follow it are read from their
 * start. Imports no handler, so a test that names its queues before its handlers load may import it.
 */
export async function streamRecords(table: Store): Promise<HeldRecord[]> {
  const endpoint = process.env.DYNAMODB_ENDPOINT!;
  const region = process.env.AWS_REGION!;
  const streams = new DynamoDBStreamsClient({ endpoint, region });
  try {
    let read = reads.get(table.tableName);
    if (!read) {
      const dynamodb = new DynamoDBClient({ endpoint, region });
      const streamArn = (await dynamodb.send(new DescribeTableCommand({ TableName: table.tableName })).finally(() => dynamodb.destroy())).Table?.LatestStreamArn;
      if (!streamArn) throw new Error(`Table ${table.tableName} has no stream`);
      reads.set(table.tableName, (read = { streamArn, held: [], next: new Map(), shards: new Set() }));
    }
    const { streamArn, held, next, shards } = read;
    const fromStart = (ShardId: string) => streams.send(new GetShardIteratorCommand({ StreamArn: streamArn, ShardId, ShardIteratorType: 'TRIM_HORIZON' }));
    // An iterator lives 15 minutes: past that, the shard is read again after its last record held.
    const afterLast = (ShardId: string) => {
      const last = held.findLast((entry) => entry.shardId === ShardId)?.record.dynamodb?.SequenceNumber;
      return last ? streams.send(new GetShardIteratorCommand({ StreamArn: streamArn, ShardId, ShardIteratorType: 'AFTER_SEQUENCE_NUMBER', SequenceNumber: last })) : fromStart(ShardId);
    };
    for (let discover = !shards.size; ; discover = true) {
      if (discover) {
        for (const { ShardId } of (await streams.send(new DescribeStreamCommand({ StreamArn: streamArn }))).StreamDescription?.Shards ?? []) {
          if (shards.has(ShardId!)) continue;
          shards.add(ShardId!);
          next.set(ShardId!, (await fromStart(ShardId!)).ShardIterator);
        }
      }
      let ended = false;
      for (const [shardId, start] of next) {
        let iterator = start;
        while (iterator) {
          const answer = await streams.send(new GetRecordsCommand({ ShardIterator: iterator })).catch(async (error: unknown) => {
            if (!(error instanceof ExpiredIteratorException)) throw error;
            return streams.send(new GetRecordsCommand({ ShardIterator: (await afterLast(shardId)).ShardIterator }));
          });
          const records = answer.Records ?? [];
          held.push(...records.map((record) => ({ streamArn, shardId, record })));
          iterator = answer.NextShardIterator;
          if (!records.length) break;
        }
        if (iterator) next.set(shardId, iterator);
        else {
          next.delete(shardId);
          ended = true;
        }
      }
      if (!ended) return [...held];
    }
  } finally {
    streams.destroy();
  }
}
