import type { DynamoDBRecord } from 'aws-lambda';
import { isReportsChange } from '../../lambdas/domain/reports/reports-stream-filter';
import { isPublishable } from '../../lambdas/domain/webhooks/stream-filters';
import { projectReports } from '../../lambdas/handlers/project-reports';
import { publishBatch } from '../../lambdas/handlers/publish-webhook-events';
import { lambdaContext } from '../../lib/local/api-gateway-event';
import { toLambdaRecord } from '../../lib/local/stream-poller';
import type { Store } from '../../lambdas/shared/store';
import { streamRecords, type HeldRecord } from './table-stream';

/**
 * The table's stream readers as deployed, run over what the table's stream on DynamoDB Local holds
 * so far, each record filtered as the stack's event sources filter it: what a test calls before
 * reading what they write. Each reader is handed each shard's records since its last call, as
 * Lambda hands a record over once its batch succeeded (a failure here throws). The publisher
 * (`publish-webhook-events`) writes a dispatch change's delivery events (decision 112);
 * `{ again: true }` hands it every record the stream holds once more, as a retried batch is, to show
 * that its writes repeat harmlessly. The report projection (`project-reports`,
 * decision 113) sums counts, which a record handed over twice would count twice: it is handed each
 * record once, in one tumbling window ended at once. Throws if either reports a failure.
 */
export async function runStreamConsumer(table: Store, options: { again?: boolean } = {}): Promise<void> {
  const region = process.env.AWS_REGION!;
  const held = await streamRecords(table);
  for (const { checkpoint, fresh, through } of unhanded(published, table.tableName, held, options.again)) {
    const records: DynamoDBRecord[] = fresh.map(({ streamArn, record }) => toLambdaRecord(record, streamArn, region)).filter(isPublishable);
    // Lambda hands a batch over at most 100 records at a time here (the stack's batchSize).
    for (let i = 0; i < records.length; i += 100) {
      const { batchItemFailures } = await publishBatch({ Records: records.slice(i, i + 100) }, lambdaContext('publish-webhook-events', 60_000));
      if (batchItemFailures.length) throw new Error(`The stream consumer failed ${batchItemFailures.length} record(s)`);
    }
    published.set(checkpoint, through);
  }
  await projectHeld(table.tableName, held, region);
}

/**
 * The report projection alone (see `runStreamConsumer`): for a test that reads only the reports.
 * DynamoDB Local's stream has one shard; `spreadOver` names shards to hand the records to instead,
 * each item's records to one of them, as DynamoDB spreads a busy table's stream.
 */
export async function runReportProjection(table: Store, options: { spreadOver?: string[] } = {}): Promise<void> {
  const held = await streamRecords(table);
  const { spreadOver } = options;
  // Items take the shards in turn, by where their first record is in the stream: the same on every call.
  const items = new Map<string, number>();
  const spread = spreadOver
    ? held.map((entry) => {
        const pk = entry.record.dynamodb?.Keys?.pk?.S ?? '';
        if (!items.has(pk)) items.set(pk, items.size);
        return { ...entry, shardId: spreadOver[items.get(pk)! % spreadOver.length]! };
      })
    : held;
  await projectHeld(table.tableName, spread, process.env.AWS_REGION!);
}

/** How far each reader has been handed each table's shards (table and shard → sequence number), as Lambda's checkpoints of its event sources. */
const published = new Map<string, string>();
const projected = new Map<string, string>();

/**
 * Each shard's records after the reader's checkpoint (or all of them, `fromStart`), with the
 * checkpoint's key and the sequence number it moves to once they are taken.
 */
function unhanded(checkpoints: Map<string, string>, tableName: string, held: HeldRecord[], fromStart = false) {
  return [...new Set(held.map((entry) => entry.shardId))].flatMap((shardId) => {
    const checkpoint = `${tableName}\u0000${shardId}`;
    const ofShard = held.filter((entry) => entry.shardId === shardId);
    const after = fromStart ? undefined : checkpoints.get(checkpoint);
    const from = after === undefined ? 0 : ofShard.findIndex((entry) => entry.record.dynamodb?.SequenceNumber === after) + 1;
    // Handing records over again would count them again: a checkpoint the stream no longer holds is a broken test.
    if (from === 0 && after !== undefined) throw new Error(`The stream no longer holds record ${after} of shard ${shardId}`);
    const fresh = ofShard.slice(from);
    return fresh.length ? [{ shardId, checkpoint, fresh, through: fresh.at(-1)!.record.dynamodb!.SequenceNumber! }] : [];
  });
}

async function projectHeld(tableName: string, held: HeldRecord[], region: string): Promise<void> {
  for (const { shardId, checkpoint, fresh, through } of unhanded(projected, tableName, held)) {
    const records = fresh.map(({ streamArn, record }) => toLambdaRecord(record, streamArn, region)).filter(isReportsChange);
    if (!records.length) {
      projected.set(checkpoint, through);
      continue;
    }
    const start = new Date();
    const window = { start: start.toISOString(), end: new Date(start.getTime() + 1_000).toISOString() };
    let state = {};
    for (let i = 0; i <= records.length; i += 100) {
      const last = i + 100 >= records.length;
      const event = { Records: records.slice(i, i + 100), window, state, shardId, eventSourceARN: fresh[0]!.streamArn, isFinalInvokeForWindow: last, isWindowTerminatedEarly: false };
      state = (await projectReports(event)).state;
      if (last) break;
    }
    // Only a window written moves the checkpoint on, as Lambda's does.
    projected.set(checkpoint, through);
  }
}
