import { DescribeTableCommand, DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DescribeStreamCommand, DynamoDBStreamsClient, GetRecordsCommand, GetShardIteratorCommand, type _Record } from '@aws-sdk/client-dynamodb-streams';
import type { DynamoDBRecord } from 'aws-lambda';
import { isPublishable } from '../../lambdas/domain/webhooks/stream-filters';
import { publishBatch } from '../../lambdas/handlers/publish-webhook-events';
import { lambdaContext } from '../../lib/local/api-gateway-event';
import { toLambdaRecord } from '../../lib/local/stream-poller';
import type { Store } from '../../lambdas/shared/store';

/** Every record the table's stream on DynamoDB Local holds so far, shard by shard in order, with its stream and shard. */
export async function streamRecords(table: Store): Promise<{ streamArn: string; shardId: string; record: _Record }[]> {
  const endpoint = process.env.DYNAMODB_ENDPOINT!;
  const region = process.env.AWS_REGION!;
  const dynamodb = new DynamoDBClient({ endpoint, region });
  const streams = new DynamoDBStreamsClient({ endpoint, region });
  try {
    const streamArn = (await dynamodb.send(new DescribeTableCommand({ TableName: table.tableName }))).Table?.LatestStreamArn;
    if (!streamArn) throw new Error(`Table ${table.tableName} has no stream`);
    const found: { streamArn: string; shardId: string; record: _Record }[] = [];
    for (const shard of (await streams.send(new DescribeStreamCommand({ StreamArn: streamArn }))).StreamDescription?.Shards ?? []) {
      const shardId = shard.ShardId!;
      let iterator = (await streams.send(new GetShardIteratorCommand({ StreamArn: streamArn, ShardId: shardId, ShardIteratorType: 'TRIM_HORIZON' }))).ShardIterator;
      while (iterator) {
        const { Records = [], NextShardIterator } = await streams.send(new GetRecordsCommand({ ShardIterator: iterator }));
        found.push(...Records.map((record) => ({ streamArn, shardId, record })));
        iterator = Records.length ? NextShardIterator : undefined;
      }
    }
    return found;
  } finally {
    dynamodb.destroy();
    streams.destroy();
  }
}

/**
 * The table's stream consumer (`publish-webhook-events`, the deployed handler) run over every
 * record the table's stream on DynamoDB Local holds so far, filtered as the stack's event source
 * filters them: what a test calls before reading what the consumer writes, such as a dispatch
 * change's delivery events (decision 112). Records handed over before are handed over again, as a
 * retried batch is; the consumer's writes repeat harmlessly. Throws if it reports a record failed.
 */
export async function runStreamConsumer(table: Store): Promise<void> {
  const region = process.env.AWS_REGION!;
  const records: DynamoDBRecord[] = (await streamRecords(table)).map(({ streamArn, record }) => toLambdaRecord(record, streamArn, region)).filter(isPublishable);
  // Lambda hands a batch over at most 100 records at a time here (the stack's batchSize).
  for (let i = 0; i < records.length; i += 100) {
    const { batchItemFailures } = await publishBatch({ Records: records.slice(i, i + 100) }, lambdaContext('publish-webhook-events', 60_000));
    if (batchItemFailures.length) throw new Error(`The stream consumer failed ${batchItemFailures.length} record(s)`);
  }
}
