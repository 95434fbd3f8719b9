/**
 * The dispatch queue's settings, shared by the CDK stack and the local runtime's emulator so
 * both redrive alike. AWS advises a visibility timeout of at least six times the consumer's
 * timeout when a Lambda event source reads the queue, so a slow batch is not redelivered early.
 */
const consumerTimeoutSeconds = 30;

export const dispatchQueueSettings = {
  consumerTimeoutSeconds,
  visibilityTimeoutSeconds: consumerTimeoutSeconds * 6,
  /** Receives before a message moves to the DLQ; also the provider's "later" answers a dispatch gets before it fails (decision 132). */
  maxReceiveCount: 5,
  batchSize: 10,
  retentionDays: 4,
  dlqRetentionDays: 14,
} as const;
