import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBStreamsClient, ExpiredIteratorException, TrimmedDataAccessException, type ServiceInputTypes, type ServiceOutputTypes, type _Record } from '@aws-sdk/client-dynamodb-streams';
import { PutCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import type { DynamoDBRecord } from 'aws-lambda';
import type { BuildMiddleware } from '@smithy/types';
import { DISPATCH_ENTITY } from '../../lambdas/domain/messages/dispatch';
import { isPublishable } from '../../lambdas/domain/webhooks/stream-filters';
import { startStreamPoller, type StreamPoller } from '../../lib/local/stream-poller';
import { createTestTable } from '../support/dynamodb';

/**
 * The local runtime's stream poller (Lambda's DynamoDB Streams event source, played on DynamoDB
 * Local) against shard iterators that are lost, as DynamoDB Streams documents it
 * (https://docs.aws.amazon.com/amazondynamodbstreams/latest/APIReference/API_GetRecords.html):
 * an iterator expires after 15 minutes, and GetRecords then refuses it with
 * ExpiredIteratorException for good; records past the stream's retention are trimmed, and an
 * iterator pointing before them, or a GetShardIterator after a trimmed sequence number, is refused
 * with TrimmedDataAccessException. DynamoDB Local ages nothing on a test's clock (though it was seen
 * trimming under load), so both are put in front of it here.
 */
const region = process.env.AWS_REGION!;
const endpoint = process.env.DYNAMODB_ENDPOINT!;
let table: Awaited<ReturnType<typeof createTestTable>>;
let dynamodb: DynamoDBClient;
let streams: DynamoDBStreamsClient;
let poller: StreamPoller;
const errors: unknown[] = [];
const handled: DynamoDBRecord[] = [];

const faults = {
  /** Iterators handed out so far, and those now refused, with the error that refuses them. */
  handedOut: new Set<string>(),
  refusedWith: new Map<string, 'expired' | 'trimmed'>(),
  /** Records up to this stream sequence number are gone. */
  trimmedThrough: undefined as bigint | undefined,
  /** The next reads answered without a next iterator, as DynamoDB Local sometimes answers an open shard's. */
  withoutNextIterator: 0,
  refusals: { expired: 0, trimmed: 0 },
};
/** Every iterator handed out until now is refused from now on. */
const lose = (how: 'expired' | 'trimmed') => faults.handedOut.forEach((iterator) => faults.refusedWith.set(iterator, how));
const trimmedAway = (sequenceNumber: string | undefined) => faults.trimmedThrough !== undefined && sequenceNumber !== undefined && BigInt(sequenceNumber) <= faults.trimmedThrough;
const refuse = (how: 'expired' | 'trimmed') => {
  faults.refusals[how]++;
  const $metadata = { httpStatusCode: 400 };
  return how === 'expired'
    ? new ExpiredIteratorException({ message: 'Iterator expired. The iterator was created at time X while right now it is time Y.', $metadata })
    : new TrimmedDataAccessException({ message: 'The operation attempted to read past the oldest stream record in a shard.', $metadata });
};
const emulateLostIterators: BuildMiddleware<ServiceInputTypes, ServiceOutputTypes> = (next, context) => async (args) => {
  const input = args.input as { ShardIterator?: string; ShardIteratorType?: string; SequenceNumber?: string };
  const refusal = input.ShardIterator && faults.refusedWith.get(input.ShardIterator);
  if (context.commandName === 'GetRecordsCommand' && refusal) throw refuse(refusal);
  if (context.commandName === 'GetShardIteratorCommand' && input.ShardIteratorType === 'AFTER_SEQUENCE_NUMBER' && trimmedAway(input.SequenceNumber)) throw refuse('trimmed');
  const result = await next(args);
  const output = result.output as { ShardIterator?: string; NextShardIterator?: string; Records?: _Record[] };
  const handedOut = output.ShardIterator ?? output.NextShardIterator;
  if (handedOut) faults.handedOut.add(handedOut);
  if (context.commandName === 'GetRecordsCommand' && faults.withoutNextIterator > 0) {
    faults.withoutNextIterator--;
    delete output.NextShardIterator;
  }
  if (output.Records) output.Records = output.Records.filter((record) => !trimmedAway(record.dynamodb?.SequenceNumber));
  return result;
};

/** A poller over the test table's stream, through the faults, keeping what it hands on in `into`. */
const pollInto = (into: DynamoDBRecord[]) =>
  startStreamPoller({
    dynamodb,
    streams,
    region,
    tableName: process.env.TABLE_NAME!,
    functionName: 'publish-webhook-events',
    filter: isPublishable,
    consumer: {
      handler: async ({ Records }) => {
        into.push(...Records);
        return { batchItemFailures: [] };
      },
    },
    onError: (error) => errors.push(error),
  });

beforeAll(async () => {
  table = await createTestTable();
  dynamodb = new DynamoDBClient({ endpoint, region });
  streams = new DynamoDBStreamsClient({ endpoint, region });
  streams.middlewareStack.add(emulateLostIterators, { step: 'build', name: 'emulateLostIterators' });
  poller = await pollInto(handled);
});
afterAll(async () => {
  await poller.stop();
  streams.destroy();
  dynamodb.destroy();
  await table.drop();
});

/** A dispatch of the test's own, whose changes the poller hands on. */
function dispatch(id: string) {
  const key = { pk: `DSP#${id}`, sk: 'DSP' };
  const tableName = process.env.TABLE_NAME!;
  return {
    create: () => table.db.send(new PutCommand({ TableName: tableName, Item: { ...key, entity: DISPATCH_ENTITY, sequence: 0 } })),
    changeTo: (sequence: number) =>
      table.db.send(new UpdateCommand({ TableName: tableName, Key: key, UpdateExpression: 'SET #sequence = :sequence', ExpressionAttributeNames: { '#sequence': 'sequence' }, ExpressionAttributeValues: { ':sequence': sequence } })),
    handled: () => handled.filter((record) => record.dynamodb!.Keys!.pk!.S === key.pk),
    handledSequences() {
      return this.handled().map((record) => Number(record.dynamodb!.NewImage!.sequence!.N));
    },
  };
}

async function until(condition: () => boolean, what: string) {
  const deadline = Date.now() + 10_000;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error(`Timed out waiting for ${what}; the poller reported: ${errors.map(String).join('; ') || 'nothing'}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}
/** A few more polls, for any record read twice. */
const settle = () => new Promise((resolve) => setTimeout(resolve, 1_000));

/** A dispatch created and changed once, that change handed on: the poller is reading its shard. */
async function changedOnce(id: string) {
  const message = dispatch(id);
  await message.create();
  await message.changeTo(1);
  await until(() => message.handled().length === 1, 'the first change');
  return message;
}

/** Two more changes: all three handed on, in order, none twice, and nothing reported. */
async function expectEveryChangeHandledOnce(message: ReturnType<typeof dispatch>) {
  await message.changeTo(2);
  await message.changeTo(3);
  await until(() => message.handled().length >= 3, 'the later changes');
  await settle();
  expect(message.handledSequences()).toEqual([1, 2, 3]);
  expect(errors).toEqual([]);
}

describe('the local stream poller', () => {
  it('reads on after its iterator expires, from the record after the last one it read: none skipped, none twice', async () => {
    const message = await changedOnce('expired');

    lose('expired');
    await expectEveryChangeHandledOnce(message);
    expect(faults.refusals.expired).toBeGreaterThan(0);
  }, 30_000);

  it('reads on from the oldest record the shard still holds once the records around its iterator are trimmed', async () => {
    const message = await changedOnce('trimmed');

    // The stream drops everything up to the last record read: neither the iterator nor a new one
    // after that record can be had, only one from the oldest record still held.
    faults.trimmedThrough = BigInt(message.handled()[0]!.dynamodb!.SequenceNumber!);
    lose('trimmed');
    const refusedBefore = faults.refusals.trimmed;
    await expectEveryChangeHandledOnce(message);
    // Refused twice at least: the old iterator, then an iterator after the trimmed record.
    expect(faults.refusals.trimmed - refusedBefore).toBeGreaterThanOrEqual(2);
  }, 30_000);

  it('keeps reading an open shard whose read came back without a next iterator', async () => {
    const message = await changedOnce('no-next-iterator');

    faults.withoutNextIterator = 1;
    await until(() => faults.withoutNextIterator === 0, 'a read without a next iterator');
    await expectEveryChangeHandledOnce(message);
  }, 30_000);

  it('hands on nothing the stream held before it started, even once its first iterator is lost', async () => {
    const message = await changedOnce('before-start');

    const late: DynamoDBRecord[] = [];
    const latePoller = await pollInto(late);
    try {
      // Its iterators lost before it handed anything on: it reads on after the last record the
      // stream held when it started, not from the oldest.
      lose('expired');
      await message.changeTo(2);
      await until(() => late.length > 0, 'the change after it started');
      await settle();
      expect(late.map((record) => [record.dynamodb!.Keys!.pk!.S, Number(record.dynamodb!.NewImage!.sequence!.N)])).toEqual([['DSP#before-start', 2]]);
    } finally {
      await latePoller.stop();
    }
    expect(errors).toEqual([]);
  }, 30_000);
});
