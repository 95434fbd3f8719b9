import { Duration, Stack, Validations, type CfnElement, type RemovalPolicy } from 'aws-cdk-lib';
import type { ITableV2 } from 'aws-cdk-lib/aws-dynamodb';
import { Architecture, LoggingFormat, SystemLogLevel, Tracing } from 'aws-cdk-lib/aws-lambda';
import { NodejsFunction } from 'aws-cdk-lib/aws-lambda-nodejs';
import type { IKey } from 'aws-cdk-lib/aws-kms';
import { PolicyStatement } from 'aws-cdk-lib/aws-iam';
import { LogGroup, type RetentionDays } from 'aws-cdk-lib/aws-logs';
import type { IQueue } from 'aws-cdk-lib/aws-sqs';
import type { ISecret } from 'aws-cdk-lib/aws-secretsmanager';
import { type Construct } from 'constructs';
import { metricsNamespace } from './monitoring';
import { METRICS_SERVICE } from '../../lambdas/shared/metric-names';
import { FUNCTION_BUNDLING, FUNCTION_NODE_OPTIONS } from './bundling';
import { LAMBDA_RUNTIME } from '../node-runtime';
import type { SystemLogLevelSetting } from '../stack-config';

/** Every function's memory unless its construct says otherwise (the cost row prices GB-seconds at it). */
export const FUNCTION_MEMORY_MB = 512;

export interface AppFunctionProps {
  /** Absolute path of the handler module (exports `handler`). */
  entry: string;
  description: string;
  logRetention: RetentionDays;
  /** Encrypts the log group; its key policy must allow CloudWatch Logs (docs/deploy.md). */
  logEncryptionKey?: IKey | undefined;
  /** Lambda's own records (start, report): INFO, Lambda's default, unless the stack says otherwise. */
  systemLogLevel?: SystemLogLevelSetting | undefined;
  removalPolicy: RemovalPolicy;
  timeout?: Duration;
  memorySize?: number;
  /** Executions kept for this function and never exceeded: for a function anyone can call (a function URL). */
  reservedConcurrentExecutions?: number;
}

/**
 * What the functions do with the table, and no more. CDK's `grantReadData` adds `Scan` (no function
 * scans: every read is by key or a query, so a function's role cannot read the whole table, every
 * workspace's data, in a few calls), `DescribeTable` and the stream's actions on the table.
 * A transaction needs each of its items' actions (`ConditionCheckItem` for its checks).
 */
const TABLE_READS = ['dynamodb:GetItem', 'dynamodb:BatchGetItem', 'dynamodb:Query'];
const TABLE_WRITES = ['dynamodb:PutItem', 'dynamodb:UpdateItem', 'dynamodb:DeleteItem', 'dynamodb:BatchWriteItem', 'dynamodb:ConditionCheckItem'];
/** The table key's actions DynamoDB needs of a reader and a writer (as CDK's grants give them). */
const KEY_READS = ['kms:Decrypt', 'kms:DescribeKey'];
const KEY_WRITES = ['kms:Encrypt', 'kms:ReEncrypt*', 'kms:GenerateDataKey*'];

/**
 * A NodejsFunction with the project's defaults: the project's Node (../node-runtime.ts) on arm64, no X-Ray (docs/decisions.md 59), JSON logs in a
 * log group with retention, and the project's bundle (./bundling.ts). Access is granted only through
 * the helpers below, which set the environment variable and the IAM grant together.
 */
export class AppFunction extends NodejsFunction {
  constructor(scope: Construct, id: string, props: AppFunctionProps) {
    const logGroup = new LogGroup(scope, `${id}Logs`, { retention: props.logRetention, encryptionKey: props.logEncryptionKey, removalPolicy: props.removalPolicy });
    super(scope, id, {
      entry: props.entry,
      handler: 'handler',
      description: props.description,
      runtime: LAMBDA_RUNTIME,
      architecture: Architecture.ARM_64,
      memorySize: props.memorySize ?? FUNCTION_MEMORY_MB,
      timeout: props.timeout ?? Duration.seconds(10),
      ...(props.reservedConcurrentExecutions !== undefined ? { reservedConcurrentExecutions: props.reservedConcurrentExecutions } : {}),
      // No SDK call is traced and Powertools Tracer would cost bundle size and cold start on every
      // function: the access logs, JSON logs and metrics answer what traces would (decision 59).
      tracing: Tracing.DISABLED,
      logGroup,
      loggingFormat: LoggingFormat.JSON,
      systemLogLevelV2: SystemLogLevel[props.systemLogLevel ?? 'INFO'],
      environment: {
        NODE_OPTIONS: FUNCTION_NODE_OPTIONS,
        POWERTOOLS_SERVICE_NAME: METRICS_SERVICE,
        POWERTOOLS_LOG_LEVEL: 'INFO',
        POWERTOOLS_METRICS_NAMESPACE: metricsNamespace(scope),
      },
      bundling: FUNCTION_BUNDLING,
    });
    // cdk-nag (AwsSolutions) findings every function has, and why they stand.
    Validations.of(this.role!).acknowledge({
      id: 'AwsSolutions-IAM4[Policy::arn:<AWS::Partition>:iam::aws:policy/service-role/AWSLambdaBasicExecutionRole]',
      reason: 'The AWS-managed basic execution role grants only CreateLogGroup/CreateLogStream/PutLogEvents; AWS maintains it as the logging contract changes.',
    });
    Validations.of(this).acknowledge({
      id: 'AwsSolutions-L1',
      reason: 'The runtime follows the Node the project installs and tests on (lib/node-runtime.ts, package.json): moving to the newest runtime is a deliberate upgrade of both, not a drift.',
    });
  }

  readsTable(table: ITableV2): this {
    table.grant(this, ...TABLE_READS);
    table.encryptionKey?.grant(this, ...KEY_READS);
    this.addEnvironment('TABLE_NAME', table.tableName);
    return this.acknowledgeIndexGrant(table);
  }

  writesTable(table: ITableV2): this {
    table.grant(this, ...TABLE_READS, ...TABLE_WRITES);
    table.encryptionKey?.grant(this, ...KEY_READS, ...KEY_WRITES);
    this.addEnvironment('TABLE_NAME', table.tableName);
    if (table.encryptionKey) this.acknowledgeKeyGrant();
    return this.acknowledgeIndexGrant(table);
  }

  /** A table grant covers `<table>/index/*`: cdk-nag flags the wildcard, which names only this table's GSIs. */
  private acknowledgeIndexGrant(table: ITableV2): this {
    const tableLogicalId = Stack.of(table).getLogicalId(table.node.defaultChild as CfnElement);
    Validations.of(this.role!).acknowledge({
      id: `AwsSolutions-IAM5[Resource::<${tableLogicalId}.Arn>/index/*]`,
      reason: 'Queries read the table\'s own GSIs (lambdas/shared/table.ts); the wildcard spans those indexes and no other table.',
    });
    return this;
  }

  readsSecret(secret: ISecret, variable: string): this {
    secret.grantRead(this);
    this.addEnvironment(variable, secret.secretName);
    return this;
  }

  /** Sends to `queue`, named to the function by `variable`: the dispatch queue, or the webhook-events queue. */
  sendsTo(queue: IQueue, variable: 'QUEUE_URL' | 'WEBHOOK_QUEUE_URL' = 'QUEUE_URL'): this {
    queue.grantSendMessages(this);
    this.addEnvironment(variable, queue.queueUrl);
    if (queue.encryptionMasterKey) this.acknowledgeKeyGrant();
    return this;
  }

  /**
   * Reads SQS's own metrics of a queue from CloudWatch (the reconciler: how long the oldest message
   * has waited, decision 137). `GetMetricStatistics` takes no resource: the grant is `*`, read-only.
   */
  readsQueueMetrics(): this {
    this.addToRolePolicy(new PolicyStatement({ actions: ['cloudwatch:GetMetricStatistics'], resources: ['*'] }));
    Validations.of(this.role!).acknowledge({
      id: 'AwsSolutions-IAM5[Resource::*]',
      reason: 'cloudwatch:GetMetricStatistics supports no resource-level permission; the grant reads metrics only (the dispatch queue\'s ApproximateAgeOfOldestMessage).',
    });
    return this;
  }

  /** Writing to a table or queue under a customer-managed key grants CDK's encrypt set, whose actions end in `*`. */
  private acknowledgeKeyGrant(): void {
    const reason = 'Writing under the stack\'s customer-managed key (context kmsKeyArn): kms:GenerateDataKey* and kms:ReEncrypt* are CDK\'s encrypt grant, on that one key only.';
    Validations.of(this.role!).acknowledge({ id: 'AwsSolutions-IAM5[Action::kms:GenerateDataKey*]', reason }, { id: 'AwsSolutions-IAM5[Action::kms:ReEncrypt*]', reason });
  }
}
