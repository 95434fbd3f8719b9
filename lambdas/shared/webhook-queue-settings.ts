/**
 * The webhook-events queue's settings, shared by the CDK stack and the local runtime so both
 * redrive alike (decision 79). A consumer batch posts its messages at once, each bounded by
 * WEBHOOK_TIMEOUT_MS, so the function's timeout covers one slow receiver with room to spare.
 * Retries of a receiver's failures are new messages (lambdas/domain/webhooks/retry-schedule.ts); a
 * receive that fails is our own fault (the table did not answer), and after five it goes to the DLQ.
 */
const consumerTimeoutSeconds = 30;

export const webhookQueueSettings = {
  consumerTimeoutSeconds,
  visibilityTimeoutSeconds: consumerTimeoutSeconds * 6,
  maxReceiveCount: 5,
  batchSize: 10,
  /**
   * Consumer invocations at once, at most (the event source's `maxConcurrency`): up to 100 POSTs
   * in flight. Retries are spread out by their schedule, so dead endpoints take a small share.
   */
  maxConcurrency: 10,
  /** Each message waits at most 15 minutes before it is received: days are ample. */
  retentionDays: 4,
  dlqRetentionDays: 14,
} as const;
