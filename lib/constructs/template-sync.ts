import { Duration, type RemovalPolicy } from 'aws-cdk-lib';
import type { ITableV2 } from 'aws-cdk-lib/aws-dynamodb';
import { Rule, Schedule } from 'aws-cdk-lib/aws-events';
import { LambdaFunction } from 'aws-cdk-lib/aws-events-targets';
import type { IKey } from 'aws-cdk-lib/aws-kms';
import type { RetentionDays } from 'aws-cdk-lib/aws-logs';
import type { ISecret } from 'aws-cdk-lib/aws-secretsmanager';
import { Construct } from 'constructs';
import { join } from 'node:path';
import { AppFunction } from './app-function';
import { HANDLERS_DIR } from '../project-paths';
import type { SystemLogLevelSetting } from '../stack-config';

export interface TemplateSyncProps {
  table: ITableV2;
  whatsappSecret: ISecret;
  graphApiBaseUrl: string;
  logRetention: RetentionDays;
  /** Lambda's own log records for its functions (lib/stack-config.ts `systemLogLevel`). */
  systemLogLevel?: SystemLogLevelSetting | undefined;
  /** The customer-managed key for the log groups, when the stack has one. */
  encryptionKey?: IKey | undefined;
  removalPolicy: RemovalPolicy;
}

/**
 * How often every workspace's templates are read from its WhatsApp Business Account. Status and
 * category changes arrive at once by webhook; the schedule brings new templates and edited content,
 * and repairs a missed webhook.
 */
export const TEMPLATE_SYNC_EVERY = Duration.hours(1);

/** The scheduled template sync (the same as `npm run admin -- templates sync`, for every workspace). */
export class TemplateSync extends Construct {
  readonly syncFunction: AppFunction;

  constructor(scope: Construct, id: string, props: TemplateSyncProps) {
    super(scope, id);
    this.syncFunction = new AppFunction(this, 'SyncFunction', {
      entry: join(HANDLERS_DIR, 'sync-templates.ts'),
      description: 'Syncs every workspace’s templates from its WhatsApp Business Account',
      timeout: Duration.minutes(5),
      logRetention: props.logRetention,
      systemLogLevel: props.systemLogLevel,
      logEncryptionKey: props.encryptionKey,
      removalPolicy: props.removalPolicy,
    })
      .writesTable(props.table)
      .readsSecret(props.whatsappSecret, 'WHATSAPP_SECRET_NAME');
    this.syncFunction.addEnvironment('GRAPH_API_BASE_URL', props.graphApiBaseUrl);
    // A run that fails for one workspace would be retried for all of them: the next run is the retry (decision 187).
    this.syncFunction.configureAsyncInvoke({ retryAttempts: 0 });
    new Rule(this, 'Schedule', { schedule: Schedule.rate(TEMPLATE_SYNC_EVERY), targets: [new LambdaFunction(this.syncFunction)] });
  }
}
