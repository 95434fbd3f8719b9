import { Duration, Stack, type RemovalPolicy } from 'aws-cdk-lib';
import type { Stage } from 'aws-cdk-lib/aws-apigateway';
import {
  Alarm,
  AlarmStatusWidget,
  ComparisonOperator,
  Dashboard,
  GraphWidget,
  MathExpression,
  Metric,
  Stats,
  TreatMissingData,
  type IMetric,
} from 'aws-cdk-lib/aws-cloudwatch';
import { SnsAction } from 'aws-cdk-lib/aws-cloudwatch-actions';
import type { ITableV2 } from 'aws-cdk-lib/aws-dynamodb';
import { PolicyStatement, ServicePrincipal } from 'aws-cdk-lib/aws-iam';
import { Key, type IKey } from 'aws-cdk-lib/aws-kms';
import { Function as LambdaFunction, type IFunction } from 'aws-cdk-lib/aws-lambda';
import { Topic } from 'aws-cdk-lib/aws-sns';
import { EmailSubscription } from 'aws-cdk-lib/aws-sns-subscriptions';
import type { IQueue } from 'aws-cdk-lib/aws-sqs';
import { Construct, type IConstruct } from 'constructs';
import { FAILURE_CODE_DIMENSION, METRICS_SERVICE, metricNames, senderRefusalCodes, SKIP_REASON_DIMENSION, type WebhookSkipReason } from '../../lambdas/shared/metric-names';
import { tableDefinition } from '../../lambdas/shared/table';
import { webhookQueueSettings } from '../../lambdas/shared/webhook-queue-settings';
import type { WebhookMetrics } from './messaging-api';

/**
 * The business metrics' CloudWatch namespace: the stack's name, so two stages in one account never
 * mix their counts. Functions get it as POWERTOOLS_METRICS_NAMESPACE (./app-function.ts).
 */
export const metricsNamespace = (scope: IConstruct) => Stack.of(scope).stackName;

/** Where each alarm is explained; its description points there. */
const RUNBOOK = 'docs/operations.md';

/**
 * Thresholds. Every alarm is meant to page someone, so each is set where "normal" ends.
 */
export const thresholds = {
  /** A message in the DLQ is a dispatch that failed five receives: always worth a look. */
  deadLetterMessages: 0,
  /**
   * Delivery takes seconds; a retried message waits at most 2+4+8+16 s of back-off (about 4.5
   * minutes for refusals that last minutes, decision 138), and one whose consumer died waits out
   * the 180 s visibility timeout. Ten minutes means the consumer is not keeping up or keeps
   * failing, long before the 4-day retention drops anything.
   */
  oldestMessageAgeSeconds: 600,
  /**
   * How old a campaign's own backlog may grow while messages keep going out and every other
   * workspace is served (decision 141): 40 minutes is about 190 000 messages at one number's 80 a
   * second, beyond what a campaign should queue at once.
   */
  campaignBacklogAgeSeconds: 2_400,
  /**
   * 5xx as a percentage of requests, only once a period has this many requests: at low traffic
   * one fault in three requests is not an incident, and is still in the logs.
   */
  serverErrorPercent: 5,
  serverErrorMinRequests: 20,
  /**
   * The consumer throws only when a whole invocation fails (a provider's verdict, even a retry, is
   * a partial batch failure, not an error): any error in two periods out of three is a fault.
   */
  deliverErrors: 0,
  /**
   * The reconciler runs every minute and is what moves a dispatch out of a dead attempt or a
   * release (decisions 63, 161, 163): one failed run is made good by the next, but errors in every
   * period for fifteen minutes are a reconciler that no longer runs, with nothing else to say so.
   */
  reconcilerErrors: 0,
  /**
   * A reconciler that is never invoked (its schedule disabled or deleted, its target's permission
   * removed) throws nothing, so `reconciler-failing` stays quiet. It runs every minute: fifteen
   * minutes with no run at all is not a slow one.
   */
  reconcilerSilentPeriods: 3,
  /**
   * A throttling burst that clears within minutes is absorbed by retries (SQS redelivers, clients
   * retry on 429/5xx); ten minutes of it is capacity that is missing.
   */
  throttles: 0,
  /**
   * Webhook items set aside (not understood, or naming nothing of ours) per five minutes. A
   * handful is normal (a status for a message sent from another tool on the same number); more,
   * twice running, is Meta sending something new, or a number misconfigured: worth a look before
   * statuses or customer messages go missing for days.
   */
  webhookItemsSkipped: 20,
  /**
   * One attempt held because WhatsApp refused the token means every WhatsApp send is held until
   * someone replaces it: page at once.
   */
  deliveriesHeld: 0,
  /** WhatsApp restricting, disabling or finding a violation on a business account stops or limits its sends: page at once. */
  accountsRestricted: 0,
  /**
   * One send WhatsApp refused for its sender (payment, lock, policy block, the number's
   * registration) means every send from that account or number fails until it is fixed: page at once.
   */
  sendersRefused: 0,
  /** A message in the webhook DLQ is an event we failed to deliver for reasons of our own: always worth a look. */
  webhookDeadLetterMessages: 0,
  /**
   * Five-minute periods in a row with webhook event messages waiting and none received. A consumer
   * that reads receives some in every period (a batch of ten in seconds), so three is not a slow one.
   */
  webhookQueueStalledPeriods: 3,
  /** A stream batch the publisher gave up on holds delivery events and webhook events never written: always worth a look. */
  streamBatchesFailed: 0,
  /**
   * Events given up on (a receiver that failed every attempt for a day, or answered 410) per hour.
   * The receivers are the integrations', but a steady stream of them, or an endpoint disabled, is
   * worth telling the workspace before it notices missing events.
   */
  webhookEventsAbandoned: 0,
  webhookEndpointsDisabled: 0,
  /**
   * Age of the newest stream record the table's stream consumer was handed, in ms. A record is
   * normally taken within its batching window (a second); five minutes, twice running, is a consumer
   * failing or throttled while delivery-status misses the events it has not written (decision 112)
   * and webhook events wait.
   */
  streamConsumerBehindMs: 300_000,
  /**
   * The same age for the report projection (decision 113), which tries a failing batch until it
   * succeeds: five minutes, twice running, is its shard held back while the reports miss the
   * dispatches it has not counted.
   */
  reportsBehindMs: 300_000,
} as const;

export interface MonitoringProps {
  stage: Stage;
  /** WhatsApp's callbacks, when they come in apart from the stage: counted in the API's 5xx rate with it. */
  webhookMetrics?: WebhookMetrics | undefined;
  deliverFunction: IFunction;
  /** The reconciler, every minute on a schedule: its failures reach no queue, so only an alarm tells. */
  reconcileFunction: IFunction;
  queue: IQueue;
  deadLetterQueue: IQueue;
  /** The webhook pipeline's queue, DLQ and consumer, and the table's stream consumer (lib/constructs/webhook-pipeline.ts). */
  webhooks: { queue: IQueue; deadLetterQueue: IQueue; streamFailures: IQueue; deliverFunction: IFunction; publishFunction: IFunction };
  /** The report projection, the stream's second reader (lib/constructs/report-projection.ts). */
  reportsFunction: IFunction;
  table: ITableV2;
  alarmEmail?: string | undefined;
  /**
   * The stack's customer-managed key, used instead of a key of our own. Its policy must let
   * CloudWatch (cloudwatch.amazonaws.com) decrypt and generate data keys: the stack cannot grant
   * that on an imported key.
   */
  encryptionKey?: IKey | undefined;
  removalPolicy: RemovalPolicy;
}

/**
 * Alarms on what needs a person (DLQ, queue age, API 5xx rate, deliver errors, a WhatsApp token,
 * account or number refused, throttles, skipped webhook items, a reconciler failing or not running,
 * the table's stream consumer behind), all notifying one SNS topic, and a dashboard with the business metrics next to the queue, API and
 * Lambda ones. What each alarm means and what to do: docs/operations.md.
 */
export class Monitoring extends Construct {
  readonly topic: Topic;
  readonly dashboard: Dashboard;
  readonly alarms: Alarm[] = [];

  constructor(scope: Construct, id: string, props: MonitoringProps) {
    super(scope, id);
    const stackName = Stack.of(this).stackName;

    // Alarm notifications are encrypted at rest with a key of our own: CloudWatch cannot use the
    // AWS-managed SNS key, whose policy does not let it encrypt.
    const key = props.encryptionKey ?? this.alarmTopicKey(stackName, props.removalPolicy);
    this.topic = new Topic(this, 'AlarmTopic', { displayName: `${stackName} alarms`, masterKey: key, enforceSSL: true });
    if (props.alarmEmail) this.topic.addSubscription(new EmailSubscription(props.alarmEmail));

    const alarmNames: string[] = [];
    /** By default an alarm fires above `threshold`, and no data is no traffic (or an idle queue), not a fault. */
    const alarm = (
      id: string,
      name: string,
      description: string,
      metric: IMetric,
      threshold: number,
      periods: { evaluate: number; breaching: number },
      when: { comparison: ComparisonOperator; missingData: TreatMissingData } = { comparison: ComparisonOperator.GREATER_THAN_THRESHOLD, missingData: TreatMissingData.NOT_BREACHING },
    ) => {
      alarmNames.push(`${stackName}-${name}`);
      const created = new Alarm(this, id, {
        metric,
        alarmName: `${stackName}-${name}`,
        alarmDescription: `${description} Runbook: ${RUNBOOK}#${name}`,
        threshold,
        comparisonOperator: when.comparison,
        evaluationPeriods: periods.evaluate,
        datapointsToAlarm: periods.breaching,
        treatMissingData: when.missingData,
      });
      created.addAlarmAction(new SnsAction(this.topic));
      created.addOkAction(new SnsAction(this.topic));
      this.alarms.push(created);
      return created;
    };
    /** A queue that should stay empty, read minute by minute: its alarm fires past `threshold` messages at once. */
    const queueHolds = (id: string, name: string, description: string, queue: IQueue, threshold: number) =>
      alarm(id, name, description, queue.metricApproximateNumberOfMessagesVisible({ statistic: Stats.MAXIMUM, period: Duration.minutes(1) }), threshold, { evaluate: 1, breaching: 1 });

    const fiveMinutes = Duration.minutes(5);

    const business = (name: string, statistic: string = Stats.SUM) =>
      new Metric({ namespace: metricsNamespace(this), metricName: name, dimensionsMap: { service: METRICS_SERVICE }, statistic, period: fiveMinutes });
    const sum = { statistic: Stats.SUM, period: fiveMinutes };
    // With the callbacks on an HTTP API or a function URL, their requests and 5xx join the stage's;
    // a period where one side had no traffic has no datapoint there, so it counts as 0.
    const both = (label: string, what: string, stage: IMetric, webhook: IMetric) =>
      new MathExpression({ label, expression: `FILL(stage${what}, 0) + FILL(webhook${what}, 0)`, usingMetrics: { [`stage${what}`]: stage, [`webhook${what}`]: webhook }, period: fiveMinutes });
    const webhook = props.webhookMetrics;
    // The table's own dimension leaves its indexes out: each index's throttles are a metric of their own.
    const throttleEvents: Record<string, IMetric> = {};
    for (const index of [undefined, ...Object.keys(tableDefinition.indexes)]) {
      for (const direction of ['Read', 'Write'] as const) {
        throttleEvents[`${direction.toLowerCase()}${index ?? 'Table'}`] = props.table.metric(`${direction}ThrottleEvents`, {
          statistic: Stats.SUM,
          period: fiveMinutes,
          dimensionsMap: { TableName: props.table.tableName, ...(index ? { GlobalSecondaryIndexName: index } : {}) },
        });
      }
    }
    // CloudWatch takes at most 10 metrics in one alarm: a fifth index needs an alarm of its own.
    if (Object.keys(throttleEvents).length > 10) throw new Error('table-throttles would watch more than the 10 metrics an alarm takes: split it');
    const requests = webhook ? both('Requests', 'Requests', props.stage.metricCount(sum), webhook.requests(sum)) : props.stage.metricCount(sum);
    const serverErrors = webhook ? both('5xx', 'Errors', props.stage.metricServerError(sum), webhook.serverErrors(sum)) : props.stage.metricServerError(sum);
    const serverErrorRate = new MathExpression({
      label: '5xx % of requests',
      expression: `IF(requests >= ${thresholds.serverErrorMinRequests}, 100 * errors / requests, 0)`,
      usingMetrics: { requests, errors: serverErrors },
      period: fiveMinutes,
    });
    const allThrottles = LambdaFunction.metricAllThrottles({ statistic: Stats.SUM, period: fiveMinutes });
    const reservedThrottles = webhook?.reservedThrottles?.({ statistic: Stats.SUM, period: fiveMinutes });
    const lambdaThrottles = reservedThrottles
      ? new MathExpression({ label: 'Throttles, but the reserved callbacks function’s', expression: 'FILL(all, 0) - FILL(reserved, 0)', usingMetrics: { all: allThrottles, reserved: reservedThrottles }, period: fiveMinutes })
      : allThrottles;
    const tableThrottles = new MathExpression({
      label: 'Table and index throttle events',
      expression: Object.keys(throttleEvents).map((id) => `FILL(${id}, 0)`).join(' + '),
      usingMetrics: throttleEvents,
      period: fiveMinutes,
    });

    queueHolds('DeadLetterQueueNotEmpty', 'dlq-not-empty', 'Dispatch messages reached the DLQ: delivery failed five receives in a row.', props.deadLetterQueue, thresholds.deadLetterMessages);
    // A campaign's own backlog is not an outage (decision 141): while other workspaces' messages go
    // out in time (the fair queue's quiet groups) and messages are being sent, its age counts only
    // past campaignBacklogAgeSeconds. With nothing sent, or others waiting, the age counts as is.
    const dispatchQueueAge = new MathExpression({
      label: 'Oldest message, counted when delivery is stuck or behind for other workspaces',
      expression: `IF(FILL(quietAge, 0) > ${thresholds.oldestMessageAgeSeconds}, age, IF(FILL(sent, 0) > 0, IF(age > ${thresholds.campaignBacklogAgeSeconds}, age, 0), age))`,
      usingMetrics: {
        age: props.queue.metricApproximateAgeOfOldestMessage({ statistic: Stats.MAXIMUM, period: fiveMinutes }),
        quietAge: props.queue.metric('ApproximateAgeOfOldestMessageInQuietGroups', { statistic: Stats.MAXIMUM, period: fiveMinutes }),
        sent: business(metricNames.sent),
      },
      period: fiveMinutes,
    });
    alarm(
      'DispatchQueueAge',
      'dispatch-queue-age',
      `The oldest dispatch message has waited over ${thresholds.oldestMessageAgeSeconds} s while nothing was sent or other workspaces waited too (over ${thresholds.campaignBacklogAgeSeconds} s for one campaign's own backlog): delivery is stuck or behind.`,
      dispatchQueueAge,
      thresholds.oldestMessageAgeSeconds,
      { evaluate: 2, breaching: 2 },
    );
    alarm(
      'ApiServerErrorRate',
      'api-5xx-rate',
      `Over ${thresholds.serverErrorPercent}% of API requests answered 5xx.`,
      serverErrorRate,
      thresholds.serverErrorPercent,
      { evaluate: 3, breaching: 2 },
    );
    alarm(
      'DeliverErrors',
      'deliver-errors',
      'Deliver consumer invocations failed as a whole (crash, timeout, a bad deploy); a record failed on our side is a log line, not this.',
      props.deliverFunction.metricErrors({ statistic: Stats.SUM, period: fiveMinutes }),
      thresholds.deliverErrors,
      { evaluate: 3, breaching: 2 },
    );
    alarm(
      'ReconcilerErrors',
      'reconciler-failing',
      'The reconciler failed in every 5-minute period for 15 minutes: dispatches of dead attempts and releases are not moved on until it runs again.',
      props.reconcileFunction.metricErrors({ statistic: Stats.SUM, period: fiveMinutes }),
      thresholds.reconcilerErrors,
      { evaluate: 3, breaching: 3 },
    );
    // Lambda publishes no Invocations datapoint for a period without a run, so a missing one is the
    // breach here: the only alarm of the stack that fires on silence.
    alarm(
      'ReconcilerNotRunning',
      'reconciler-not-running',
      `The reconciler was not invoked in ${thresholds.reconcilerSilentPeriods * 5} minutes: its schedule is disabled, deleted or cannot invoke it, and dispatches of dead attempts and releases are not moved on.`,
      props.reconcileFunction.metricInvocations({ statistic: Stats.SUM, period: fiveMinutes }),
      1,
      { evaluate: thresholds.reconcilerSilentPeriods, breaching: thresholds.reconcilerSilentPeriods },
      { comparison: ComparisonOperator.LESS_THAN_THRESHOLD, missingData: TreatMissingData.BREACHING },
    );
    alarm(
      'DeliveriesHeld',
      'whatsapp-token-refused',
      'WhatsApp refused the access token (Graph error 190 or a permission error): WhatsApp deliveries are held, not sent, until the secret holds a valid token.',
      business(metricNames.deliveryHeld),
      thresholds.deliveriesHeld,
      { evaluate: 1, breaching: 1 },
    );
    alarm(
      'WhatsAppAccountRestricted',
      'whatsapp-account-restricted',
      'WhatsApp restricted, disabled or found a policy violation on a business account (its account_update webhook): some or all of its sends will fail until it is resolved.',
      business(metricNames.accountRestricted),
      thresholds.accountsRestricted,
      { evaluate: 1, breaching: 1 },
    );
    // Each code is its own FailureCode metric: the alarm adds those that say the sender is refused.
    const senderRefusals = Object.fromEntries(
      senderRefusalCodes.map((code) => [
        `refused${code}`,
        new Metric({ namespace: metricsNamespace(this), metricName: metricNames.failed, dimensionsMap: { service: METRICS_SERVICE, [FAILURE_CODE_DIMENSION]: code }, statistic: Stats.SUM, period: fiveMinutes }),
      ]),
    );
    alarm(
      'WhatsAppSenderRefused',
      'whatsapp-sender-refused',
      `WhatsApp refused a send for its sender, not the message (${senderRefusalCodes.join(', ')}: payment method, locked or blocked account, number not registered or its display name not approved): every send from that account or number fails until it is fixed.`,
      new MathExpression({
        label: 'Sends failed because WhatsApp refuses the sender',
        expression: Object.keys(senderRefusals)
          .map((id) => `FILL(${id}, 0)`)
          .join(' + '),
        usingMetrics: senderRefusals,
        period: fiveMinutes,
      }),
      thresholds.sendersRefused,
      { evaluate: 1, breaching: 1 },
    );
    alarm(
      'LambdaThrottles',
      'lambda-throttles',
      'Lambda throttled invocations in this account and region: concurrency ran out.',
      lambdaThrottles,
      thresholds.throttles,
      { evaluate: 2, breaching: 2 },
    );
    alarm('TableThrottles', 'table-throttles', 'DynamoDB throttled reads or writes on the table or its indexes.', tableThrottles, thresholds.throttles, { evaluate: 2, breaching: 2 });
    alarm(
      'WebhookItemsSkipped',
      'webhook-items-skipped',
      `Over ${thresholds.webhookItemsSkipped} WhatsApp webhook items or whole requests in five minutes were skipped (not understood, or for a number that is not ours) or refused (a signature that does not match, a body that is not Meta's).`,
      new MathExpression({
        label: 'Webhook items skipped and requests refused',
        // Statuses of messages another app or WhatsApp Manager sent on a shared number name wamids
        // we never sent (`unknown_message_id`), and a customer deletes or edits a message there
        // (`customer_message_changed`): normal traffic on such a number, so they are counted and
        // shown on the dashboard, not paged on.
        expression: 'FILL(skipped, 0) - FILL(notOurs, 0) - FILL(changed, 0) + FILL(refused, 0)',
        usingMetrics: {
          skipped: business(metricNames.webhookItemsSkipped),
          notOurs: new Metric({
            namespace: metricsNamespace(this),
            metricName: metricNames.webhookItemsSkipped,
            dimensionsMap: { service: METRICS_SERVICE, [SKIP_REASON_DIMENSION]: 'unknown_message_id' satisfies WebhookSkipReason },
            statistic: Stats.SUM,
            period: fiveMinutes,
          }),
          changed: new Metric({
            namespace: metricsNamespace(this),
            metricName: metricNames.webhookItemsSkipped,
            dimensionsMap: { service: METRICS_SERVICE, [SKIP_REASON_DIMENSION]: 'customer_message_changed' satisfies WebhookSkipReason },
            statistic: Stats.SUM,
            period: fiveMinutes,
          }),
          refused: business(metricNames.webhookRequestsRefused),
        },
        period: fiveMinutes,
      }),
      thresholds.webhookItemsSkipped,
      { evaluate: 3, breaching: 2 },
    );
    queueHolds('WebhookDeadLetterQueueNotEmpty', 'webhook-dlq-not-empty', 'Webhook event deliveries failed five receives on our side (table or queue unreachable).', props.webhooks.deadLetterQueue, thresholds.webhookDeadLetterMessages);
    // A consumer that no longer polls (its event source mapping disabled, or denied the queue or its
    // key) fails nothing, so nothing reaches the DLQ: its messages wait, then expire. Retries wait
    // as delayed messages, which are not visible, so visible messages with none received is the tell.
    alarm(
      'WebhookQueueStalled',
      'webhook-queue-stalled',
      `Webhook event messages waited on the webhook-events queue for ${thresholds.webhookQueueStalledPeriods * 5} minutes and none was received: the consumer is not reading it, and its events expire after ${webhookQueueSettings.retentionDays} days.`,
      new MathExpression({
        label: 'Webhook event messages waiting while none is received',
        expression: 'IF(FILL(received, 0) == 0, FILL(visible, 0), 0)',
        usingMetrics: {
          visible: props.webhooks.queue.metricApproximateNumberOfMessagesVisible({ statistic: Stats.MAXIMUM, period: fiveMinutes }),
          received: props.webhooks.queue.metricNumberOfMessagesReceived({ statistic: Stats.SUM, period: fiveMinutes }),
        },
        period: fiveMinutes,
      }),
      0,
      { evaluate: thresholds.webhookQueueStalledPeriods, breaching: thresholds.webhookQueueStalledPeriods },
    );
    queueHolds('StreamBatchesFailed', 'stream-batches-failed', 'The table’s stream publisher gave up on a batch of records (11 tries or a day): their delivery events and webhook events were not written.', props.webhooks.streamFailures, thresholds.streamBatchesFailed);
    const streamConsumerAge = props.webhooks.publishFunction.metric('IteratorAge', { statistic: Stats.MAXIMUM, period: fiveMinutes });
    alarm(
      'StreamConsumerBehind',
      'stream-consumer-behind',
      'The table’s stream consumer is minutes behind: delivery events and webhook events are not being written.',
      streamConsumerAge,
      thresholds.streamConsumerBehindMs,
      { evaluate: 2, breaching: 2 },
    );
    const reportsAge = props.reportsFunction.metric('IteratorAge', { statistic: Stats.MAXIMUM, period: fiveMinutes });
    alarm(
      'ReportsBehind',
      'reports-behind',
      'The report projection is minutes behind: tag links and report rollups are not being written, and the reports undercount.',
      reportsAge,
      thresholds.reportsBehindMs,
      { evaluate: 2, breaching: 2 },
    );
    const hourly = (name: string) => new Metric({ namespace: metricsNamespace(this), metricName: name, dimensionsMap: { service: METRICS_SERVICE }, statistic: Stats.SUM, period: Duration.hours(1) });
    alarm(
      'WebhookEndpointsFailing',
      'webhook-endpoints-failing',
      'Webhook events were given up on: an endpoint failed every attempt for a day, or answered 410 Gone.',
      hourly(metricNames.eventsAbandoned),
      thresholds.webhookEventsAbandoned,
      { evaluate: 1, breaching: 1 },
    );
    alarm(
      'WebhookEndpointsDisabled',
      'webhook-endpoint-disabled',
      'A webhook endpoint was disabled by delivery: it answered 410 Gone, or failed for days.',
      hourly(metricNames.endpointsDisabled),
      thresholds.webhookEndpointsDisabled,
      { evaluate: 1, breaching: 1 },
    );

    // The topic's policy (enforceSSL writes one) replaces SNS's default, whose account-wide Allow is
    // what lets alarms publish: without this statement every alarm action fails "not authorized".
    // This stack's alarms by name, each: a prefix would let a stage named after it (`prod-eu` after
    // `prod`) publish here too.
    const { account, region, partition } = Stack.of(this);
    this.topic.addToResourcePolicy(
      new PolicyStatement({
        principals: [new ServicePrincipal('cloudwatch.amazonaws.com')],
        actions: ['sns:Publish'],
        resources: [this.topic.topicArn],
        conditions: {
          StringEquals: { 'aws:SourceAccount': account },
          ArnLike: { 'aws:SourceArn': alarmNames.map((name) => `arn:${partition}:cloudwatch:${region}:${account}:alarm:${name}`) },
        },
      }),
    );

    this.dashboard = new Dashboard(this, 'Dashboard', { dashboardName: stackName, defaultInterval: Duration.hours(6) });
    const failuresByCode = new MathExpression({
      label: '',
      expression: `SEARCH('{${metricsNamespace(this)},service,${FAILURE_CODE_DIMENSION}} MetricName="${metricNames.failed}"', 'Sum', 300)`,
      period: fiveMinutes,
    });
    const wide = 12;
    this.dashboard.addWidgets(new AlarmStatusWidget({ title: 'Alarms', alarms: this.alarms, width: 24 }));
    this.dashboard.addWidgets(
      new GraphWidget({
        title: 'Messages',
        width: wide,
        left: [
          business(metricNames.queued),
          business(metricNames.sent),
          business(metricNames.delivered),
          business(metricNames.failed),
          business(metricNames.deliveryHeld),
          business(metricNames.deliveryDeferred),
          business(metricNames.deliveryPaced),
          business(metricNames.heldForQualityAssessment),
        ],
      }),
      new GraphWidget({ title: 'Failures by code', width: wide, left: [failuresByCode] }),
    );
    this.dashboard.addWidgets(
      new GraphWidget({
        title: 'Webhook items skipped, by reason; requests refused; accounts restricted; number errors',
        width: wide,
        left: [
          new MathExpression({
            label: '',
            expression: `SEARCH('{${metricsNamespace(this)},service,${SKIP_REASON_DIMENSION}} MetricName="${metricNames.webhookItemsSkipped}"', 'Sum', 300)`,
            period: fiveMinutes,
          }),
        ],
        right: [business(metricNames.webhookRequestsRefused), business(metricNames.accountRestricted), business(metricNames.numberErrors)],
      }),
    );
    this.dashboard.addWidgets(
      new GraphWidget({
        title: 'Provider latency (ms)',
        width: wide,
        left: [business(metricNames.providerLatency, Stats.p(50)), business(metricNames.providerLatency, Stats.p(90)), business(metricNames.providerLatency, Stats.p(99))],
      }),
      new GraphWidget({
        title: 'Dispatch queue',
        width: wide,
        left: [
          props.queue.metricApproximateNumberOfMessagesVisible({ period: fiveMinutes }),
          props.deadLetterQueue.metricApproximateNumberOfMessagesVisible({ period: fiveMinutes, label: 'DLQ messages' }),
          // Fair queues (the workspace is each message's group): workspaces whose backlog SQS now serves after the others'.
          props.queue.metric('ApproximateNumberOfNoisyGroups', { statistic: Stats.MAXIMUM, period: fiveMinutes, label: 'Workspaces held back (noisy groups)' }),
        ],
        right: [
          props.queue.metricApproximateAgeOfOldestMessage({ period: fiveMinutes }),
          // What every other workspace waits while one campaign drains: the age that says whether delivery itself is behind.
          props.queue.metric('ApproximateAgeOfOldestMessageInQuietGroups', { statistic: Stats.MAXIMUM, period: fiveMinutes, label: 'Oldest message, other workspaces' }),
        ],
      }),
    );
    this.dashboard.addWidgets(
      new GraphWidget({
        title: 'Webhook events',
        width: wide,
        left: [business(metricNames.eventsDelivered), business(metricNames.eventAttemptsFailed), business(metricNames.eventsAbandoned), business(metricNames.endpointsDisabled)],
      }),
      new GraphWidget({
        title: 'Webhook-events queue',
        width: wide,
        left: [
          props.webhooks.queue.metricApproximateNumberOfMessagesVisible({ period: fiveMinutes }),
          props.webhooks.deadLetterQueue.metricApproximateNumberOfMessagesVisible({ period: fiveMinutes, label: 'DLQ messages' }),
          props.webhooks.streamFailures.metricApproximateNumberOfMessagesVisible({ period: fiveMinutes, label: 'Stream batches given up' }),
        ],
        right: [props.webhooks.deliverFunction.metricErrors({ period: fiveMinutes, statistic: Stats.SUM })],
      }),
      new GraphWidget({
        title: 'Table stream consumer (delivery and webhook events)',
        width: wide,
        left: [streamConsumerAge.with({ label: 'Iterator age (ms, max)' })],
        right: [props.webhooks.publishFunction.metricErrors({ period: fiveMinutes, statistic: Stats.SUM })],
      }),
      new GraphWidget({
        title: 'Report projection (tag links and rollups)',
        width: wide,
        left: [reportsAge.with({ label: 'Iterator age (ms, max)' })],
        right: [props.reportsFunction.metricErrors({ period: fiveMinutes, statistic: Stats.SUM })],
      }),
    );
    this.dashboard.addWidgets(
      new GraphWidget({
        title: 'API requests and errors',
        width: wide,
        left: [requests, props.stage.metricClientError({ statistic: Stats.SUM, period: fiveMinutes }), serverErrors],
      }),
      new GraphWidget({
        title: 'API latency (ms)',
        width: wide,
        left: [props.stage.metricLatency({ statistic: Stats.p(50), period: fiveMinutes }), props.stage.metricLatency({ statistic: Stats.p(99), period: fiveMinutes })],
      }),
    );
    this.dashboard.addWidgets(
      new GraphWidget({
        title: 'Deliver consumer',
        width: wide,
        left: [props.deliverFunction.metricInvocations({ period: fiveMinutes }), props.deliverFunction.metricErrors({ period: fiveMinutes }), props.deliverFunction.metricThrottles({ period: fiveMinutes })],
        right: [props.deliverFunction.metricDuration({ statistic: Stats.p(99), period: fiveMinutes })],
      }),
      new GraphWidget({ title: 'Errors, every function', width: wide, left: functionErrors(this) }),
    );
    this.dashboard.addWidgets(new GraphWidget({ title: 'Throttles: every function, the table and its indexes', width: wide, left: [lambdaThrottles, tableThrottles] }));
  }

  private alarmTopicKey(stackName: string, removalPolicy: RemovalPolicy): Key {
    const key = new Key(this, 'AlarmTopicKey', { description: `${stackName} alarm notifications`, enableKeyRotation: true, removalPolicy });
    key.grant(new ServicePrincipal('cloudwatch.amazonaws.com'), 'kms:Decrypt', 'kms:GenerateDataKey*');
    return key;
  }
}

/**
 * Errors of each function of this stack, one line each, named by its place in the stack. By the
 * functions themselves, not a search on the stack's name: a search matches its text anywhere in a
 * function's name, so `MessagingApi-dev`'s graph also drew the functions of a `MessagingApi-dev-alice`
 * in the same account.
 */
const functionErrors = (scope: IConstruct) => {
  const stack = Stack.of(scope);
  return stack.node
    .findAll()
    .filter((construct): construct is LambdaFunction => construct instanceof LambdaFunction && Stack.of(construct) === stack)
    .map((fn) => fn.metricErrors({ statistic: Stats.SUM, period: Duration.minutes(5), label: fn.node.path.slice(stack.node.path.length + 1) }));
};
