import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBStreamsClient, ExpiredIteratorException, type ServiceInputTypes, type ServiceOutputTypes } from '@aws-sdk/client-dynamodb-streams';
import { PutCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import type { DynamoDBRecord } from 'aws-lambda';
import type { BuildMiddleware } from '@smithy/types';
import { DISPATCH_ENTITY } from '../../lambdas/domain/messages/dispatch';
import { startStreamPoller, type StreamPoller } from '../../lib/local/stream-poller';
import { createTestTable } from '../support/dynamodb';

/**
 * The local runtime's stream poller (Lambda's DynamoDB Streams event source, played on DynamoDB
 * Local) against an iterator that expires. DynamoDB Streams documents it: a shard iterator lives
 * 15 minutes, then GetRecords refuses it with ExpiredIteratorException, for good
 * (https://docs.aws.amazon.com/amazondynamodbstreams/latest/APIReference/API_GetShardIterator.html).
 * DynamoDB Local does not age them on a test's clock, so the expiry is put in front of it: every
 * iterator handed out before the moment of expiry is refused from then on.
 */
const region = process.env.AWS_REGION!;
const endpoint = process.env.DYNAMODB_ENDPOINT!;
let table: Awaited<ReturnType<typeof createTestTable>>;
let dynamodb: DynamoDBClient;
let streams: DynamoDBStreamsClient;
let poller: StreamPoller;
const errors: unknown[] = [];
const handled: DynamoDBRecord[] = [];

/** Iterators DynamoDB handed out; once `expireAll()` is called, those are dead. */
const expiry = { handedOut: new Set<string>(), dead: new Set<string>(), refused: 0 };
const expireAll = () => expiry.handedOut.forEach((iterator) => expiry.dead.add(iterator));
const emulateExpiry: BuildMiddleware<ServiceInputTypes, ServiceOutputTypes> = (next, context) => async (args) => {
  const iterator = (args.input as { ShardIterator?: string }).ShardIterator;
  if (context.commandName === 'GetRecordsCommand' && iterator && expiry.dead.has(iterator)) {
    expiry.refused++;
    throw new ExpiredIteratorException({ message: 'Iterator expired. The iterator was created at time X while right now it is time Y.', $metadata: { httpStatusCode: 400 } });
  }
  const result = await next(args);
  const output = result.output as { ShardIterator?: string; NextShardIterator?: string };
  const handedOut = output.ShardIterator ?? output.NextShardIterator;
  if (handedOut) expiry.handedOut.add(handedOut);
  return result;
};

beforeAll(async () => {
  table = await createTestTable();
  dynamodb = new DynamoDBClient({ endpoint, region });
  streams = new DynamoDBStreamsClient({ endpoint, region });
  streams.middlewareStack.add(emulateExpiry, { step: 'build', name: 'emulateIteratorExpiry' });
  poller = await startStreamPoller({
    dynamodb,
    streams,
    region,
    tableName: process.env.TABLE_NAME!,
    handler: async ({ Records }) => {
      handled.push(...Records);
      return { batchItemFailures: [] };
    },
    onError: (error) => errors.push(error),
  });
});
afterAll(async () => {
  await poller.stop();
  streams.destroy();
  dynamodb.destroy();
  await table.drop();
});

const key = { pk: 'DSP#stream-poller-test', sk: 'DSP' };
const changeTo = (sequence: number) =>
  table.db.send(new UpdateCommand({ TableName: process.env.TABLE_NAME!, Key: key, UpdateExpression: 'SET #sequence = :sequence', ExpressionAttributeNames: { '#sequence': 'sequence' }, ExpressionAttributeValues: { ':sequence': sequence } }));
const handledSequences = () => handled.map((record) => Number(record.dynamodb!.NewImage!.sequence!.N));
async function until(condition: () => boolean, what: string) {
  const deadline = Date.now() + 10_000;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error(`Timed out waiting for ${what}; handled: ${JSON.stringify(handledSequences())}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

describe('the local stream poller', () => {
  it('reads on after its iterator expires, from the record after the last one it read: none skipped, none twice', async () => {
    await table.db.send(new PutCommand({ TableName: process.env.TABLE_NAME!, Item: { ...key, entity: DISPATCH_ENTITY, sequence: 0 } }));
    await changeTo(1);
    await until(() => handled.length >= 1, 'the first change');

    expireAll();
    await changeTo(2);
    await changeTo(3);
    await until(() => handled.length >= 3, 'the changes after the expiry');
    // A few more polls, for any record read twice.
    await new Promise((resolve) => setTimeout(resolve, 1_000));

    expect(expiry.refused).toBeGreaterThan(0);
    expect(handledSequences()).toEqual([1, 2, 3]);
    expect(errors).toEqual([]);
  }, 30_000);
});
