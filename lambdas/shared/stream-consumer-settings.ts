/**
 * The event source of the table's stream consumer (the publisher, lib/constructs/webhook-pipeline.ts),
 * shared with the local stream poller (lib/local/stream-poller.ts) so both give up alike: a batch
 * whose records keep failing is tried `1 + retryAttempts` times (bisected in the stack), and a
 * record older than a day is given up whatever its tries. What is given up goes to the stream
 * failure queue (`StreamFailures`, decision 155); its delivery events are written again with
 * `delivery-events redrive` (decision 112).
 */
export const streamConsumerSettings = {
  batchSize: 100,
  maxBatchingWindowSeconds: 1,
  retryAttempts: 10,
  /** An outbox item lives a day: a record older than that goes to the stream failure queue, a dispatch's change too. */
  maxRecordAgeSeconds: 86_400,
} as const;

/**
 * The event source of the report projection (lib/constructs/report-projection.ts, decision 113),
 * shared with the local stream poller. Its records are summed over a tumbling window: the longer
 * the window, the fewer rollup writes a message (each window writes each rollup once) and the
 * longer the report rollups trail the sends. A failing batch is tried until it succeeds or its
 * records leave the stream (24 hours): a batch given up would be counts lost, so it holds its
 * shard back instead, and the `reports-behind` alarm says so.
 */
export const reportProjectionSettings = {
  batchSize: 100,
  maxBatchingWindowSeconds: 1,
  tumblingWindowSeconds: 5,
} as const;
