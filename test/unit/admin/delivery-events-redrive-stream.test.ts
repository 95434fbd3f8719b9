import { DescribeTableCommand, DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBStreamsClient, GetRecordsCommand, GetShardIteratorCommand, ResourceNotFoundException } from '@aws-sdk/client-dynamodb-streams';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { mockClient } from 'aws-sdk-client-mock';
import { runAdmin } from '../../../lib/admin/cli';

/**
 * docs/operations.md (stream-batches-failed): `delivery-events redrive` writes the events of a batch
 * the publisher gave up on, "within a day, while the stream holds the records". Lambda's failure
 * message (DDBStreamBatchInfo) names the batch's stream (`streamArn`). When the table's stream was
 * replaced since (its view type changed: DynamoDB disables the old stream, which stays readable 24
 * hours, and enables a new one with a new ARN), the batch's shard is in the old stream, not in the
 * table's LatestStreamArn, which the command read alone ("Shard does not exist", exit 1).
 */
const TABLE = 'arn:aws:dynamodb:ap-southeast-3:123456789012:table/t';
const OLD = `${TABLE}/stream/2026-11-28T00:00:00.000`;
const NEW = `${TABLE}/stream/2026-11-29T06:00:00.000`;
const SHARD = 'shardId-00000001732000000000-aaaaaaaa';

const ddb = mockClient(DynamoDBDocumentClient);
const streams = mockClient(DynamoDBStreamsClient);
beforeEach(() => {
  ddb.reset();
  streams.reset();
  ddb.on(DescribeTableCommand).resolves({ Table: { TableName: 't', TableArn: TABLE, LatestStreamArn: NEW } });
  streams.on(GetShardIteratorCommand).rejects(new ResourceNotFoundException({ message: 'Requested resource not found: Shard does not exist', $metadata: {} }));
  streams.on(GetShardIteratorCommand, { StreamArn: OLD, ShardId: SHARD }).resolves({ ShardIterator: 'it-0' });
  // The batch: one record that is no dispatch change (nothing to write), at --to.
  streams.on(GetRecordsCommand, { ShardIterator: 'it-0' }).resolves({ Records: [{ eventName: 'INSERT', dynamodb: { SequenceNumber: '200', Keys: { pk: { S: 'WS#x' }, sk: { S: 'WS' } } } }], NextShardIterator: 'it-1' });
});
afterAll(() => {
  ddb.restore();
  streams.restore();
});

async function admin(...argv: string[]) {
  const store = { db: DynamoDBDocumentClient.from(new DynamoDBClient({ region: 'ap-southeast-3', credentials: { accessKeyId: 'x', secretAccessKey: 'y' } })), tableName: 't' };
  const out: string[] = [];
  const err: string[] = [];
  const status = await runAdmin(argv, { out: (text) => out.push(text), err: (text) => err.push(text), env: {}, target: async () => ({ ...store, description: 'test table' }) });
  return { status, stdout: out.join('\n'), stderr: err.join('\n') };
}

it('redrives a failed batch of the table’s previous stream, named by --stream-arn, which still holds it', async () => {
  const answer = await admin('delivery-events', 'redrive', '--stream-arn', OLD, '--shard', SHARD, '--from', '100', '--to', '200', '--json');
  expect([answer.status, answer.stderr]).toEqual([0, 'Target: test table']);
  expect(JSON.parse(answer.stdout)).toMatchObject({ records: 1 });
});

it('exits 2, reading nothing, for a stream that is not one of the table’s', async () => {
  // A table whose name starts with this one's (`t2`) is another table.
  const other = 'arn:aws:dynamodb:ap-southeast-3:123456789012:table/t2/stream/2026-11-28T00:00:00.000';
  const answer = await admin('delivery-events', 'redrive', '--stream-arn', other, '--shard', SHARD, '--from', '100', '--to', '200');
  expect([answer.status, answer.stderr.split('\n').at(-1)]).toEqual([2, `admin: --stream-arn ${other} is not a stream of table t (its streams start with ${TABLE}/stream/)`]);
  expect(streams.calls()).toHaveLength(0);
});
