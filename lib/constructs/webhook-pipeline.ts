import { Duration, Validations, type RemovalPolicy } from 'aws-cdk-lib';
import type { ITableV2 } from 'aws-cdk-lib/aws-dynamodb';
import type { IKey } from 'aws-cdk-lib/aws-kms';
import { FilterCriteria, StartingPosition } from 'aws-cdk-lib/aws-lambda';
import { DynamoEventSource, SqsDlq, SqsEventSource } from 'aws-cdk-lib/aws-lambda-event-sources';
import type { RetentionDays } from 'aws-cdk-lib/aws-logs';
import { Queue } from 'aws-cdk-lib/aws-sqs';
import { Construct } from 'constructs';
import { join } from 'node:path';
import { publisherStreamFilters } from '../../lambdas/domain/webhooks/stream-filters';
import { streamConsumerSettings } from '../../lambdas/shared/stream-consumer-settings';
import { webhookQueueSettings } from '../../lambdas/shared/webhook-queue-settings';
import { HANDLERS_DIR } from '../project-paths';
import { AppFunction } from './app-function';
import { DispatchQueue, queueEncryption } from './dispatch-queue';
import type { SystemLogLevelSetting } from '../stack-config';

export interface WebhookPipelineProps {
  /** The table, with its stream (lib/constructs/messaging-table.ts). */
  table: ITableV2;
  logRetention: RetentionDays;
  /** Lambda's own log records for its functions (lib/stack-config.ts `systemLogLevel`). */
  systemLogLevel?: SystemLogLevelSetting | undefined;
  encryptionKey?: IKey | undefined;
  removalPolicy: RemovalPolicy;
}

/**
 * Webhook events to integrations (decisions 77–79, 89): the publisher, invoked by the table's
 * stream for outbox inserts and dispatch updates only (the event source filters, so no other
 * write costs an invocation), fans each event out to the webhook-events queue, one message per
 * endpoint; the consumer posts them. The publisher is the stream's one consumer: it also writes
 * the delivery events each dispatch change made (decision 112). Each function may run `webhookQueueSettings.maxConcurrency`
 * times at once. The DLQ takes consumer messages that failed five receives, which can be moved
 * back to the queue; the stream batches the publisher gave up on go to a queue of their own, since
 * SQS moves back only what another queue dead-lettered (docs/operations.md#stream-batches-failed).
 */
export class WebhookPipeline extends Construct {
  readonly events: DispatchQueue;
  /** Lambda's description of each stream batch the publisher gave up on: shard and sequence numbers, for `delivery-events redrive`. */
  readonly streamFailures: Queue;
  readonly publishFunction: AppFunction;
  readonly deliverFunction: AppFunction;

  constructor(scope: Construct, id: string, props: WebhookPipelineProps) {
    super(scope, id);
    const functionDefaults = { logRetention: props.logRetention, systemLogLevel: props.systemLogLevel, logEncryptionKey: props.encryptionKey, removalPolicy: props.removalPolicy };
    this.events = new DispatchQueue(this, 'Events', { removalPolicy: props.removalPolicy, encryptionKey: props.encryptionKey, settings: webhookQueueSettings });
    this.streamFailures = new Queue(this, 'StreamFailures', {
      ...queueEncryption(props.encryptionKey),
      enforceSSL: true,
      retentionPeriod: Duration.days(webhookQueueSettings.dlqRetentionDays),
      removalPolicy: props.removalPolicy,
    });
    Validations.of(this.streamFailures).acknowledge({
      id: 'AwsSolutions-SQS3',
      reason: 'It is a failure destination itself (the stream publisher’s onFailure): it keeps what failed for an operator, and nothing consumes it to fail again.',
    });

    this.publishFunction = new AppFunction(this, 'PublishFunction', {
      entry: join(HANDLERS_DIR, 'publish-webhook-events.ts'),
      description: 'Writes the delivery events of dispatch changes, and fans webhook events (outbox items, dispatch changes) out to the workspace endpoints',
      timeout: Duration.seconds(30),
      ...functionDefaults,
    })
      .writesTable(props.table)
      .sendsTo(this.events.queue, 'WEBHOOK_QUEUE_URL');
    this.publishFunction.addEventSource(
      new DynamoEventSource(props.table, {
        startingPosition: StartingPosition.TRIM_HORIZON,
        batchSize: streamConsumerSettings.batchSize,
        maxBatchingWindow: Duration.seconds(streamConsumerSettings.maxBatchingWindowSeconds),
        filters: publisherStreamFilters.map((pattern) => FilterCriteria.filter(structuredClone(pattern))),
        reportBatchItemFailures: true,
        bisectBatchOnError: true,
        retryAttempts: streamConsumerSettings.retryAttempts,
        maxRecordAge: Duration.seconds(streamConsumerSettings.maxRecordAgeSeconds),
        onFailure: new SqsDlq(this.streamFailures),
      }),
    );

    this.deliverFunction = new AppFunction(this, 'DeliverFunction', {
      entry: join(HANDLERS_DIR, 'deliver-webhook-event.ts'),
      description: 'Posts webhook events to integration endpoints, signed, and schedules their retries',
      timeout: Duration.seconds(webhookQueueSettings.consumerTimeoutSeconds),
      ...functionDefaults,
    })
      .writesTable(props.table)
      .sendsTo(this.events.queue, 'WEBHOOK_QUEUE_URL');
    this.events.queue.grantConsumeMessages(this.deliverFunction);
    this.deliverFunction.addEventSource(
      new SqsEventSource(this.events.queue, {
        batchSize: webhookQueueSettings.batchSize,
        maxBatchingWindow: Duration.seconds(1),
        reportBatchItemFailures: true,
        maxConcurrency: webhookQueueSettings.maxConcurrency,
      }),
    );
  }
}
