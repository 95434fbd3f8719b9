import { Duration, type RemovalPolicy } from 'aws-cdk-lib';
import type { ITableV2 } from 'aws-cdk-lib/aws-dynamodb';
import type { IKey } from 'aws-cdk-lib/aws-kms';
import { FilterCriteria, StartingPosition } from 'aws-cdk-lib/aws-lambda';
import { DynamoEventSource } from 'aws-cdk-lib/aws-lambda-event-sources';
import type { RetentionDays } from 'aws-cdk-lib/aws-logs';
import { Construct } from 'constructs';
import { join } from 'node:path';
import { reportsChangeStreamFilter } from '../../lambdas/domain/reports/reports-stream-filter';
import { reportProjectionSettings } from '../../lambdas/shared/stream-consumer-settings';
import { HANDLERS_DIR } from '../project-paths';
import { AppFunction } from './app-function';
import type { SystemLogLevelSetting } from '../stack-config';

export interface ReportProjectionProps {
  /** The table, with its stream (lib/constructs/messaging-table.ts). */
  table: ITableV2;
  logRetention: RetentionDays;
  systemLogLevel?: SystemLogLevelSetting | undefined;
  encryptionKey?: IKey | undefined;
  removalPolicy: RemovalPolicy;
}

/**
 * The report projection (decision 113): the table's stream's second reader, invoked only for the
 * dispatch changes that name a change of standing in the reports. It writes their tag links and
 * sums their rollups over a tumbling window, Lambda keeping the window's state between
 * invocations. No retry limit and no failure destination: a batch given up would be counts lost,
 * so a failing one holds its shard back until it succeeds (the `reports-behind` alarm watches).
 */
export class ReportProjection extends Construct {
  readonly projectFunction: AppFunction;

  constructor(scope: Construct, id: string, props: ReportProjectionProps) {
    super(scope, id);
    this.projectFunction = new AppFunction(this, 'ProjectFunction', {
      entry: join(HANDLERS_DIR, 'project-reports.ts'),
      description: 'Writes the tag links and report rollups of dispatches that start or stop counting as sent, rollups summed over a window of the stream',
      timeout: Duration.seconds(30),
      logRetention: props.logRetention,
      systemLogLevel: props.systemLogLevel,
      logEncryptionKey: props.encryptionKey,
      removalPolicy: props.removalPolicy,
    }).writesTable(props.table);
    this.projectFunction.addEventSource(
      new DynamoEventSource(props.table, {
        startingPosition: StartingPosition.TRIM_HORIZON,
        batchSize: reportProjectionSettings.batchSize,
        maxBatchingWindow: Duration.seconds(reportProjectionSettings.maxBatchingWindowSeconds),
        tumblingWindow: Duration.seconds(reportProjectionSettings.tumblingWindowSeconds),
        filters: [FilterCriteria.filter(structuredClone(reportsChangeStreamFilter))],
      }),
    );
  }
}
