import { CreateTableCommand, DeleteTableCommand, type DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { GetCommand, PutCommand, UpdateCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { itemBytes } from '../write-units';

/**
 * A prototype, not the product: the write side docs/cost.md ("What would meet $15") describes,
 * written against a table of its own on DynamoDB Local so its write units are measured, not
 * estimated. Row 8f prices it. What it changes from today's write side (decisions 17, 18, 23, 46):
 *
 * - the dispatch is the only item a status move writes, one plain conditional UpdateItem (no
 *   transaction), and stays under 1 KB: the request's rendering lives on the conversation message;
 *   the delivery events are its own timestamps (ACCEPTED is `sentAt`, DELIVERED `deliveredAt`,
 *   REJECTED `failedAt` with its code), not items of their own;
 * - its indexes are keyed on what never changes (the number, the day, the wamid once known) and
 *   project KEYS_ONLY, so a status move rewrites no index entry; readers BatchGet the table;
 * - the conversation message and the conversation's activity, the tag link and the report
 *   rollups are written by a DynamoDB Streams consumer, one rollup write per key per batch of
 *   stream records, instead of inside each status transaction. Plain ADDs are what is measured;
 *   exact ones, safe against Lambda reading a record twice, take a tumbling window and a marker
 *   per shard and window in the same transaction, about the same units (docs/cost.md, "Exact
 *   rollups from a stream").
 *
 * The reads the contract needs from that layout are argued in docs/cost.md; only the writes are
 * measured here.
 */
const INDEXES = {
  byNumber: ['npk', 'nsk'],
  byDay: ['dpk', 'dsk'],
  byWamid: ['wpk', 'wsk'],
  byActivity: ['apk', 'ask'],
} as const;

/** Stream records the aggregator gets per invocation: the row's own assumption of 10 messages a batch (docs/cost.md). */
const STREAM_BATCH_MESSAGES = 10;

export interface LeanWrites {
  /** Write units per message by step, index entries included, as DynamoDB Local reported them. */
  perStep: Record<string, number>;
  perMessage: number;
  /** Stream-consumer invocations per message (one per batch). */
  aggregatorInvocations: number;
  /** Bytes of the lean dispatch item once read, its largest (DynamoDB's item size: names and values, approximated). */
  dispatchBytes: number;
}

/**
 * Plays `messages` delivered-and-read messages (one tracking tag) through the lean write side and
 * returns the write units each step consumed. `sample` is a real dispatch item, with the text its
 * send rendered (`renderedText`): the prototype's items carry its values, so their sizes are the
 * product's.
 */
export async function measureLeanWrites(clients: { raw: DynamoDBClient; doc: DynamoDBDocumentClient }, sample: Record<string, unknown>, messages: number): Promise<LeanWrites> {
  const table = `bench-lean-${Date.now()}`;
  await clients.raw.send(
    new CreateTableCommand({
      TableName: table,
      BillingMode: 'PAY_PER_REQUEST',
      AttributeDefinitions: ['pk', 'sk', ...Object.values(INDEXES).flat()].map((name) => ({ AttributeName: name, AttributeType: 'S' })),
      KeySchema: [
        { AttributeName: 'pk', KeyType: 'HASH' },
        { AttributeName: 'sk', KeyType: 'RANGE' },
      ],
      GlobalSecondaryIndexes: Object.entries(INDEXES).map(([name, [hash, range]]) => ({
        IndexName: name,
        KeySchema: [
          { AttributeName: hash, KeyType: 'HASH' },
          { AttributeName: range, KeyType: 'RANGE' },
        ],
        Projection: { ProjectionType: 'KEYS_ONLY' },
      })),
    }),
  );
  const units: Record<string, number> = {};
  const write = async (step: string, command: PutCommand | UpdateCommand) => {
    command.input.ReturnConsumedCapacity = 'INDEXES';
    const { ConsumedCapacity } = await clients.doc.send(command as UpdateCommand);
    units[step] = (units[step] ?? 0) + (ConsumedCapacity?.CapacityUnits ?? 0);
  };
  try {
    const ws = String(sample.workspaceId);
    const tag = String((sample.trackingTags as string[] | undefined)?.[0] ?? 'bench');
    let dispatchBytes = 0;
    const batch: { dispatchId: string; to: string; at: string; day: string }[] = [];
    for (let i = 0; i < messages; i++) {
      const dispatchId = crypto.randomUUID();
      const to = `+62812${String(7_000_000 + i)}1`;
      const createdAt = new Date().toISOString();
      const day = createdAt.slice(0, 10);
      const key = { pk: `DSP#${dispatchId}`, sk: 'DSP' };
      // What GET /v1/messages/{id}, send-check, the reconciler and delivery (template, language, parameters) read.
      const dispatch = {
        ...key,
        dispatchId,
        workspaceId: ws,
        to,
        templateId: sample.templateId,
        providerTemplateName: sample.providerTemplateName,
        language: sample.language,
        bodyParameters: sample.bodyParameters,
        trackingTags: sample.trackingTags,
        apiClientId: (sample.apiClient as { id?: string } | undefined)?.id,
        creditCost: sample.creditCost,
        status: 'queued',
        sequence: 1,
        createdAt,
        updatedAt: createdAt,
        npk: `WS#${ws}#P#${to}`,
        nsk: `${String(sample.templateId)}#${createdAt}`,
        dpk: `WS#${ws}#D#${day}`,
        dsk: `${createdAt}#${dispatchId}`,
      };
      dispatchBytes = Math.max(dispatchBytes, itemBytes(dispatch));
      await write('send: the dispatch and its number and day index entries', new PutCommand({ TableName: table, Item: dispatch, ConditionExpression: 'attribute_not_exists(pk)' }));
      const move = (step: string, set: string, values: Record<string, unknown>, condition: string) =>
        write(
          step,
          new UpdateCommand({
            TableName: table,
            Key: key,
            UpdateExpression: `SET ${set}, updatedAt = :now ADD #sequence :one`,
            ConditionExpression: condition,
            ExpressionAttributeNames: { '#status': 'status', '#sequence': 'sequence' },
            ExpressionAttributeValues: { ...values, ':now': new Date().toISOString(), ':one': 1 },
          }),
        );
      await move('claim', '#status = :processing, attemptId = :attempt, attemptStartedAt = :now', { ':processing': 'processing', ':attempt': crypto.randomUUID(), ':queued': 'queued' }, '#status = :queued');
      const wamid = `wamid.HBgLNjI4MTIzNDU2Nzg5MBUCABEYEjQ${dispatchId.replaceAll('-', '').slice(0, 20)}`;
      await move(
        'sent: status, sentAt (the ACCEPTED event), wamid and its index entry',
        '#status = :sent, sentAt = :now, wpk = :wamid, wsk = :id',
        { ':sent': 'sent', ':processing': 'processing', ':wamid': wamid, ':id': dispatchId },
        '#status = :processing',
      );
      await move(
        'delivered: status, deliveredAt (the DELIVERED event), pricing',
        '#status = :delivered, deliveredAt = :now, pricing = :pricing',
        { ':delivered': 'delivered', ':sent': 'sent', ':pricing': { billable: true, category: 'utility', pricingModel: 'PMP', type: 'regular' } },
        '#status = :sent',
      );
      await move('read: readAt', 'readAt = :now', { ':delivered': 'delivered' }, '#status = :delivered AND attribute_not_exists(readAt)');
      // Its size once read, the largest it gets: every write of it costs one unit while under 1 KB.
      const { Item: settled } = await clients.doc.send(new GetCommand({ TableName: table, Key: key }));
      dispatchBytes = Math.max(dispatchBytes, itemBytes(settled!));
      batch.push({ dispatchId, to, at: createdAt, day });
      if (batch.length === STREAM_BATCH_MESSAGES || i === messages - 1) await aggregate(batch.splice(0), { ws, tag, table, write, sample });
    }
    const perStep = Object.fromEntries(Object.entries(units).map(([step, total]) => [step, total / messages]));
    return { perStep, perMessage: Object.values(perStep).reduce((a, b) => a + b, 0), aggregatorInvocations: Math.ceil(messages / STREAM_BATCH_MESSAGES) / messages, dispatchBytes };
  } finally {
    await clients.raw.send(new DeleteTableCommand({ TableName: table }));
  }
}

/**
 * The stream consumer's writes for one batch of created and sent dispatches: per message the
 * conversation message (with the rendering the dispatch no longer carries), the conversation's
 * activity and the tag link; per batch one ADD per rollup key.
 */
async function aggregate(
  batch: { dispatchId: string; to: string; at: string; day: string }[],
  context: { ws: string; tag: string; table: string; sample: Record<string, unknown>; write: (step: string, command: PutCommand | UpdateCommand) => Promise<void> },
): Promise<void> {
  const { ws, tag, table, sample, write } = context;
  for (const { dispatchId, to, at } of batch) {
    const conversationId = crypto.randomUUID();
    await write(
      'stream consumer: the conversation message, with the rendering',
      new PutCommand({
        TableName: table,
        Item: { pk: `CONV#${conversationId}`, sk: `MSG#${at}#${dispatchId}`, direction: 'outbound', dispatchId, renderedText: sample.renderedText, bodyParameters: sample.bodyParameters, templateName: sample.templateName, createdAt: at },
      }),
    );
    await write(
      'stream consumer: the conversation and its activity index entry',
      new UpdateCommand({
        TableName: table,
        Key: { pk: `CONV#${conversationId}`, sk: 'CONV' },
        UpdateExpression: 'SET workspaceId = :ws, contactPhone = :to, updatedAt = :at, apk = :apk, ask = :ask',
        ExpressionAttributeValues: { ':ws': ws, ':to': to, ':at': at, ':apk': `WS#${ws}#CONV`, ':ask': `${at}#${conversationId}` },
      }),
    );
    await write('stream consumer: the tag link', new PutCommand({ TableName: table, Item: { pk: `WS#${ws}#TAG#${tag}#${at.slice(0, 10)}`, sk: `${at}#${dispatchId}`, dispatchId } }));
  }
  const day = batch[0]!.day;
  const count = batch.length;
  const credits = count * Number(sample.creditCost ?? 1);
  for (const [pk, sk] of [
    [`WS#${ws}#RW`, day],
    [`WS#${ws}#RT#${tag}`, day],
    [`WS#${ws}#RD#${day}`, tag],
  ] as const) {
    await write(
      'stream consumer: day, tag and day-tag rollups, one ADD each per batch',
      new UpdateCommand({ TableName: table, Key: { pk, sk }, UpdateExpression: 'ADD dispatchCount :n, credits :c', ExpressionAttributeValues: { ':n': count, ':c': credits } }),
    );
  }
}
