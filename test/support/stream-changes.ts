import { DescribeTableCommand, DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DescribeStreamCommand, DynamoDBStreamsClient, GetRecordsCommand, GetShardIteratorCommand, type _Record } from '@aws-sdk/client-dynamodb-streams';
import type { Store } from '../../lambdas/shared/store';

/**
 * Reads what a table's stream gets from now on, a call at a time: for a test that proves a request
 * wrote nothing, at one GetRecords a shard instead of a Scan of the whole table (DynamoDB writes a
 * stream record for every item a write changes, and none for a write that changes nothing). Start
 * it once the test's own setup has written what it needs; close it after.
 */
export async function streamChangeReader(table: Store): Promise<{ changes(): Promise<_Record[]>; close(): void }> {
  const endpoint = process.env.DYNAMODB_ENDPOINT!;
  const region = process.env.AWS_REGION!;
  const dynamodb = new DynamoDBClient({ endpoint, region });
  const streams = new DynamoDBStreamsClient({ endpoint, region });
  const streamArn = (await dynamodb.send(new DescribeTableCommand({ TableName: table.tableName }))).Table?.LatestStreamArn;
  dynamodb.destroy();
  if (!streamArn) throw new Error(`Table ${table.tableName} has no stream`);
  const shards = async () => (await streams.send(new DescribeStreamCommand({ StreamArn: streamArn }))).StreamDescription?.Shards ?? [];
  const iteratorAt = async (ShardId: string, ShardIteratorType: 'LATEST' | 'TRIM_HORIZON') => (await streams.send(new GetShardIteratorCommand({ StreamArn: streamArn, ShardId, ShardIteratorType }))).ShardIterator;
  /** Each shard being read, with where its next read starts; a closed shard's readers end with it. */
  const readers = new Map<string, string | undefined>();
  const seen = new Set<string>();
  for (const shard of await shards()) {
    seen.add(shard.ShardId!);
    if (!shard.SequenceNumberRange?.EndingSequenceNumber) readers.set(shard.ShardId!, await iteratorAt(shard.ShardId!, 'LATEST'));
  }
  const changes = async (): Promise<_Record[]> => {
    const records: _Record[] = [];
    let closed = false;
    for (const [shardId, start] of readers) {
      let iterator = start;
      while (iterator) {
        const { Records = [], NextShardIterator } = await streams.send(new GetRecordsCommand({ ShardIterator: iterator }));
        records.push(...Records);
        iterator = NextShardIterator;
        if (!Records.length) break;
      }
      readers.set(shardId, iterator);
      if (!iterator) {
        readers.delete(shardId);
        closed = true;
      }
    }
    // A shard that closed has children, which take the writes after it: read them from their start.
    if (closed) {
      for (const shard of await shards()) {
        if (seen.has(shard.ShardId!)) continue;
        seen.add(shard.ShardId!);
        readers.set(shard.ShardId!, await iteratorAt(shard.ShardId!, 'TRIM_HORIZON'));
      }
      if (readers.size) records.push(...(await changes()));
    }
    return records;
  };
  return { changes, close: () => streams.destroy() };
}
