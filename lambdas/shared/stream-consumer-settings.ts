/**
 * The event source of the table's stream consumer (the publisher, lib/constructs/webhook-pipeline.ts),
 * shared with the local stream poller (lib/local/stream-poller.ts) so both give up alike: a batch
 * whose records keep failing is tried `1 + retryAttempts` times (bisected in the stack), and a
 * record older than a day is given up whatever its tries. What is given up goes to the webhook
 * DLQ; its delivery events are written again with `delivery-events redrive` (decision 112).
 */
export const streamConsumerSettings = {
  batchSize: 100,
  maxBatchingWindowSeconds: 1,
  retryAttempts: 10,
  /** An outbox item lives a day: a record older than that goes to the DLQ, a dispatch's change too. */
  maxRecordAgeSeconds: 86_400,
} as const;
