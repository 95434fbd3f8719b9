import { CfnOutput, RemovalPolicy, Stack, Tags, Validations, type StackProps } from 'aws-cdk-lib';
import { Key } from 'aws-cdk-lib/aws-kms';
import type { RetentionDays } from 'aws-cdk-lib/aws-logs';
import type { Construct } from 'constructs';
import { Secret } from 'aws-cdk-lib/aws-secretsmanager';
import { CustomDomain } from './constructs/custom-domain';
import { Delivery } from './constructs/delivery';
import { DispatchQueue } from './constructs/dispatch-queue';
import { MessagingApi } from './constructs/messaging-api';
import { MessagingTable } from './constructs/messaging-table';
import { Monitoring } from './constructs/monitoring';
import { ReportProjection } from './constructs/report-projection';
import { WebhookPipeline } from './constructs/webhook-pipeline';
import { TemplateSync } from './constructs/template-sync';
import { defaultUsagePlanOf, resourceTags, type StackConfig } from './stack-config';

export interface MessagingStackProps extends Omit<StackProps, 'env' | 'tags'> {
  /** Also gives the stack its account and region (or none: environment-agnostic) and its tags. */
  config: StackConfig;
}

/** The whole service: table, dispatch queue and DLQ, and the REST API with its functions. */
export class MessagingStack extends Stack {
  readonly table: MessagingTable;
  readonly dispatchQueue: DispatchQueue;
  readonly api: MessagingApi;
  readonly delivery: Delivery;
  readonly webhooks: WebhookPipeline;
  readonly reports: ReportProjection;
  readonly monitoring: Monitoring;
  readonly templateSync: TemplateSync;
  readonly customDomain: CustomDomain | undefined;

  constructor(scope: Construct, id: string, props: MessagingStackProps) {
    const { config } = props;
    // Only the configured environment, never the CLI's default one: a template built on a machine
    // whose default region is us-east-1 must not name us-east-1 (docs/deploy.md).
    // No CDK metadata resource either: its condition lists every region by name, us-east-1 included.
    super(scope, id, { ...props, analyticsReporting: false, ...(config.account && config.region ? { env: { account: config.account, region: config.region } } : {}) });
    for (const [key, value] of Object.entries(resourceTags(config.tags, this.stackName))) Tags.of(this).add(key, value);
    const retain = config.removalPolicy === 'retain';
    const removalPolicy = retain ? RemovalPolicy.RETAIN : RemovalPolicy.DESTROY;
    // One of RetentionDays' values: the settings' schema refuses any other.
    const logRetention = config.logRetentionDays as RetentionDays;
    // Imported by ARN, never looked up; without it each resource uses its AWS-managed encryption.
    const encryptionKey = config.kmsKeyArn ? Key.fromKeyArn(this, 'EncryptionKey', config.kmsKeyArn) : undefined;

    this.table = new MessagingTable(this, 'Data', { removalPolicy, retain, encryptionKey, capacity: config.tableCapacity });
    this.dispatchQueue = new DispatchQueue(this, 'Dispatch', { removalPolicy, encryptionKey });
    // Created outside the stack (it holds credentials); the stack only reads it.
    const whatsappSecret = Secret.fromSecretNameV2(this, 'WhatsAppSecret', config.whatsappSecretName);
    // Signs pagination cursors; the stack generates and owns it.
    const cursorSecret = new Secret(this, 'CursorSigningKey', {
      description: 'Signs the Messaging API pagination cursors',
      generateSecretString: { passwordLength: 48, excludePunctuation: true },
      removalPolicy,
    });
    Validations.of(cursorSecret).acknowledge({
      id: 'AwsSolutions-SMG4',
      reason:
        'Rotating the key would invalidate every cursor a client holds mid-listing; rotation needs verification against the current and previous key first. It signs opaque cursors only (integrity, nothing confidential).',
    });
    this.webhooks = new WebhookPipeline(this, 'Webhooks', { table: this.table.table, logRetention, systemLogLevel: config.systemLogLevel, encryptionKey, removalPolicy });
    this.reports = new ReportProjection(this, 'Reports', { table: this.table.table, logRetention, systemLogLevel: config.systemLogLevel, encryptionKey, removalPolicy });
    this.api = new MessagingApi(this, 'Http', {
      stage: config.stage,
      table: this.table.table,
      queue: this.dispatchQueue.queue,
      webhookQueue: this.webhooks.events.queue,
      whatsappSecret,
      cursorSecret,
      graphApiBaseUrl: config.graphApiBaseUrl,
      throttlingRateLimit: config.throttlingRateLimit,
      throttlingBurstLimit: config.throttlingBurstLimit,
      ownsCloudWatchRole: config.apiGatewayCloudWatchRole,
      webAclArn: config.webAclArn,
      usagePlans: config.usagePlans ? { plans: config.usagePlans, defaultPlan: defaultUsagePlanOf(config)! } : undefined,
      webhookFrontDoor: config.webhookFrontDoor,
      logRetention,
      systemLogLevel: config.systemLogLevel,
      encryptionKey,
      removalPolicy,
    });
    this.customDomain =
      config.domainName && config.certificateArn
        ? new CustomDomain(this, 'Domain', {
            api: this.api.api,
            domainName: config.domainName,
            certificateArn: config.certificateArn,
            hostedZone: config.hostedZoneId && config.hostedZoneName ? { id: config.hostedZoneId, name: config.hostedZoneName } : undefined,
          })
        : undefined;
    this.delivery = new Delivery(this, 'Delivery', {
      table: this.table.table,
      queue: this.dispatchQueue.queue,
      whatsappSecret,
      graphApiBaseUrl: config.graphApiBaseUrl,
      webhookUrl: this.api.webhookUrl,
      maxConcurrency: config.deliverMaxConcurrency,
      whatsappMessagesPerSecond: config.whatsappMessagesPerSecond,
      logRetention,
      systemLogLevel: config.systemLogLevel,
      encryptionKey,
      removalPolicy,
    });
    // A status move names its delivery events and reports change for the stream's readers to
    // write (decisions 112, 113): the functions that move dispatches are updated after those
    // readers, so no record naming them reaches a reader from before it wrote them.
    for (const mover of [this.delivery.deliverFunction, this.delivery.reconcileFunction, this.api.functions.whatsappWebhook, this.api.callbacksFunction]) mover?.node.addDependency(this.webhooks.publishFunction, this.reports.projectFunction);
    this.templateSync = new TemplateSync(this, 'Templates', {
      table: this.table.table,
      whatsappSecret,
      graphApiBaseUrl: config.graphApiBaseUrl,
      logRetention,
      systemLogLevel: config.systemLogLevel,
      encryptionKey,
      removalPolicy,
    });
    this.monitoring = new Monitoring(this, 'Monitoring', {
      stage: this.api.api.deploymentStage,
      webhookMetrics: this.api.webhookMetrics,
      deliverFunction: this.delivery.deliverFunction,
      reconcileFunction: this.delivery.reconcileFunction,
      queue: this.dispatchQueue.queue,
      deadLetterQueue: this.dispatchQueue.deadLetterQueue,
      webhooks: {
        deadLetterQueue: this.webhooks.events.deadLetterQueue,
        streamFailures: this.webhooks.streamFailures,
        deliverFunction: this.webhooks.deliverFunction,
        publishFunction: this.webhooks.publishFunction,
        queue: this.webhooks.events.queue,
      },
      reportsFunction: this.reports.projectFunction,
      table: this.table.table,
      alarmEmail: config.alarmEmail,
      encryptionKey,
      removalPolicy,
    });

    new CfnOutput(this, 'WebhookUrl', { key: 'WebhookUrl', value: this.api.webhookUrl, description: 'Callback URL to register with the WhatsApp app' });
    new CfnOutput(this, 'TableName', { key: 'TableName', value: this.table.table.tableName, description: 'DynamoDB table (admin CLI: TABLE_NAME)' });
    new CfnOutput(this, 'QueueUrl', { key: 'QueueUrl', value: this.dispatchQueue.queue.queueUrl, description: 'Dispatch queue' });
    new CfnOutput(this, 'DeadLetterQueueUrl', { key: 'DeadLetterQueueUrl', value: this.dispatchQueue.deadLetterQueue.queueUrl, description: 'Dispatches that failed delivery repeatedly' });
    new CfnOutput(this, 'WebhookEventsQueueUrl', { key: 'WebhookEventsQueueUrl', value: this.webhooks.events.queue.queueUrl, description: 'Webhook events to integrations’ endpoints' });
    new CfnOutput(this, 'WebhookDeadLetterQueueUrl', {
      key: 'WebhookDeadLetterQueueUrl',
      value: this.webhooks.events.deadLetterQueue.queueUrl,
      description: 'Webhook event deliveries that failed on our side (move them back with start-message-move-task)',
    });
    new CfnOutput(this, 'StreamFailureQueueUrl', {
      key: 'StreamFailureQueueUrl',
      value: this.webhooks.streamFailures.queueUrl,
      description: 'Stream batches the publisher gave up on: shard and sequence numbers for delivery-events redrive',
    });
    new CfnOutput(this, 'DashboardUrl', {
      key: 'DashboardUrl',
      value: `https://console.aws.amazon.com/cloudwatch/home?region=${this.region}#dashboards:name=${this.monitoring.dashboard.dashboardName}`,
      description: 'CloudWatch dashboard: business metrics, queue, API and functions',
    });
    new CfnOutput(this, 'AlarmTopicArn', { key: 'AlarmTopicArn', value: this.monitoring.topic.topicArn, description: 'SNS topic every alarm notifies; subscribe on-call here' });
  }
}

