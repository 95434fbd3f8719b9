import { Duration, type RemovalPolicy } from 'aws-cdk-lib';
import type { ITableV2 } from 'aws-cdk-lib/aws-dynamodb';
import { Rule, Schedule } from 'aws-cdk-lib/aws-events';
import { LambdaFunction } from 'aws-cdk-lib/aws-events-targets';
import { SqsEventSource } from 'aws-cdk-lib/aws-lambda-event-sources';
import type { IKey } from 'aws-cdk-lib/aws-kms';
import type { RetentionDays } from 'aws-cdk-lib/aws-logs';
import type { ISecret } from 'aws-cdk-lib/aws-secretsmanager';
import type { IQueue } from 'aws-cdk-lib/aws-sqs';
import { Construct } from 'constructs';
import { join } from 'node:path';
import { dispatchQueueSettings } from '../../lambdas/shared/dispatch-queue-settings';
import { AppFunction } from './app-function';
import { HANDLERS_DIR } from '../project-paths';
import type { SystemLogLevelSetting } from '../stack-config';

export interface DeliveryProps {
  table: ITableV2;
  queue: IQueue;
  whatsappSecret: ISecret;
  graphApiBaseUrl: string;
  webhookUrl: string;
  /** Deliver invocations at once, at most (the SQS event source's `maxConcurrency`). */
  maxConcurrency: number;
  /** A WhatsApp number's throughput, messages a second, unless its workspace says otherwise (the deliver consumer's pace). */
  whatsappMessagesPerSecond: number;
  logRetention: RetentionDays;
  /** Lambda's own log records for its functions (lib/stack-config.ts `systemLogLevel`). */
  systemLogLevel?: SystemLogLevelSetting | undefined;
  /** The customer-managed key for the log groups, when the stack has one. */
  encryptionKey?: IKey | undefined;
  removalPolicy: RemovalPolicy;
}


/** The deliver consumer of the dispatch queue, and the reconciler on a one-minute schedule. */
export class Delivery extends Construct {
  readonly deliverFunction: AppFunction;
  readonly reconcileFunction: AppFunction;

  constructor(scope: Construct, id: string, props: DeliveryProps) {
    super(scope, id);
    this.deliverFunction = new AppFunction(this, 'DeliverFunction', {
      entry: join(HANDLERS_DIR, 'deliver.ts'),
      description: 'Delivers queued dispatches through the workspace provider',
      timeout: Duration.seconds(dispatchQueueSettings.consumerTimeoutSeconds),
      logRetention: props.logRetention,
      systemLogLevel: props.systemLogLevel,
      logEncryptionKey: props.encryptionKey,
      removalPolicy: props.removalPolicy,
    })
      .writesTable(props.table)
      .readsSecret(props.whatsappSecret, 'WHATSAPP_SECRET_NAME')
      // It queues again what its number's pace holds back (decision 136).
      .sendsTo(props.queue);
    props.queue.grantConsumeMessages(this.deliverFunction);
    this.deliverFunction.addEnvironment('WHATSAPP_MESSAGES_PER_SECOND', String(props.whatsappMessagesPerSecond));
    this.deliverFunction.addEnvironment('DELIVER_MAX_CONCURRENCY', String(props.maxConcurrency));
    this.deliverFunction.addEnvironment('GRAPH_API_BASE_URL', props.graphApiBaseUrl);
    this.deliverFunction.addEnvironment('SANDBOX_CALLBACK_URL', props.webhookUrl);
    this.deliverFunction.addEventSource(
      new SqsEventSource(props.queue, {
        batchSize: dispatchQueueSettings.batchSize,
        maxBatchingWindow: Duration.seconds(1),
        reportBatchItemFailures: true,
        // Caps provider calls in flight at maxConcurrency × batchSize across every workspace and
        // number (docs/deploy.md, "Delivery pace"); without it a burst scales to the account's limit.
        maxConcurrency: props.maxConcurrency,
      }),
    );

    this.reconcileFunction = new AppFunction(this, 'ReconcileFunction', {
      entry: join(HANDLERS_DIR, 'reconcile.ts'),
      description: 'Re-enqueues stuck queued dispatches and settles dead attempts as unknown',
      timeout: Duration.seconds(60),
      logRetention: props.logRetention,
      systemLogLevel: props.systemLogLevel,
      logEncryptionKey: props.encryptionKey,
      removalPolicy: props.removalPolicy,
    })
      .writesTable(props.table)
      .sendsTo(props.queue)
      // How long the queue's oldest message has waited: a queued dispatch younger than that may still be in it (decision 137).
      .readsQueueMetrics();
    new Rule(this, 'ReconcileSchedule', { schedule: Schedule.rate(Duration.minutes(1)), targets: [new LambdaFunction(this.reconcileFunction)] });
  }
}
