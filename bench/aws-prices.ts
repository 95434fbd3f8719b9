/**
 * AWS list prices the cost row (bench/scenarios/cost-per-message.ts) prices a delivered message
 * at: us-east-1, the first (smallest) volume tier of each, as the pages below listed them on
 * PRICES_DATE. docs/cost.md cites the same pages; change both together.
 */
export const PRICES_REGION = 'us-east-1';
export const PRICES_DATE = '2026-11-23';

export const prices = {
  /** https://aws.amazon.com/api-gateway/pricing/ — REST APIs, first 333 million requests a month. */
  restApiRequest: 3.5 / 1e6,
  /** https://aws.amazon.com/api-gateway/pricing/ — HTTP APIs, first 300 million requests a month (per 512 KB). */
  httpApiRequest: 1.0 / 1e6,
  /** https://aws.amazon.com/lambda/pricing/ — a function URL costs nothing beyond the function's own invocation. */
  functionUrlRequest: 0,
  /** https://aws.amazon.com/lambda/pricing/ — requests, either architecture. */
  lambdaRequest: 0.2 / 1e6,
  /** https://aws.amazon.com/lambda/pricing/ — Arm, first 7.5 billion GB-seconds a month. */
  lambdaArmGbSecond: 0.0000133334,
  /** https://aws.amazon.com/dynamodb/pricing/on-demand/ — Standard table class, write request unit. */
  dynamodbWriteUnit: 0.625 / 1e6,
  /** https://aws.amazon.com/dynamodb/pricing/on-demand/ — Standard table class, read request unit. */
  dynamodbReadUnit: 0.125 / 1e6,
  /** https://aws.amazon.com/dynamodb/pricing/provisioned/ — Standard table class, one write capacity unit for an hour. */
  dynamodbWriteCapacityHour: 0.00065,
  /** https://aws.amazon.com/dynamodb/pricing/provisioned/ — Standard table class, one read capacity unit for an hour. */
  dynamodbReadCapacityHour: 0.00013,
  /** https://aws.amazon.com/sqs/pricing/ — standard queue, per request (each 64 KB chunk). */
  sqsRequest: 0.4 / 1e6,
  /** https://aws.amazon.com/cloudwatch/pricing/ — Logs, Standard class, data ingested per GB. */
  logsIngestedGb: 0.5,
  /** https://aws.amazon.com/secrets-manager/pricing/ — per 10 000 API calls. */
  secretsManagerCall: 0.05 / 10_000,
  /** https://aws.amazon.com/kms/pricing/ — symmetric requests, per 10 000. */
  kmsRequest: 0.03 / 10_000,
} as const;
