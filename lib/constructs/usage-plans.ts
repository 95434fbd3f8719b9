import { CfnOutput, Duration, Stack, type RemovalPolicy } from 'aws-cdk-lib';
import { ApiKey, IdentitySource, Period, RequestAuthorizer, type RestApi, type UsagePlan } from 'aws-cdk-lib/aws-apigateway';
import type { ITableV2 } from 'aws-cdk-lib/aws-dynamodb';
import type { IKey } from 'aws-cdk-lib/aws-kms';
import type { RetentionDays } from 'aws-cdk-lib/aws-logs';
import { Construct } from 'constructs';
import { join } from 'node:path';
import { HANDLERS_DIR } from '../project-paths';
import type { SystemLogLevelSetting, UsagePlanSetting } from '../stack-config';
import { AppFunction } from './app-function';

export interface UsagePlansProps {
  api: RestApi;
  plans: Record<string, UsagePlanSetting>;
  /** The plan of workspaces without a usage key of their own. */
  defaultPlan: string;
  table: ITableV2;
  logRetention: RetentionDays;
  /** Lambda's own log records for its functions (lib/stack-config.ts `systemLogLevel`). */
  systemLogLevel?: SystemLogLevelSetting | undefined;
  encryptionKey?: IKey | undefined;
  removalPolicy: RemovalPolicy;
}

/**
 * How long API Gateway keeps the authorizer's answer for one X-API-Key value. It bounds how late a
 * workspace's first own usage key takes over from the fallback key; never revocation, which each
 * route's function checks itself (docs/deploy.md#rate-limits-and-usage-plans).
 */
export const AUTHORIZER_CACHE_TTL = Duration.seconds(300);

const periods = { DAY: Period.DAY, WEEK: Period.WEEK, MONTH: Period.MONTH } as const;

/**
 * API Gateway usage plans per workspace (decision 69): one usage plan per configured plan on the
 * stage, the REQUEST authorizer that names each request's usage key, and the fallback key that
 * workspaces without their own share, in the default plan. The admin CLI gives a workspace its own
 * key and plan (`workspace update --usage-plan`), finding the plans by the `UsagePlans` output.
 */
export class UsagePlans extends Construct {
  readonly authorizer: RequestAuthorizer;
  readonly plans: Record<string, UsagePlan> = {};

  constructor(scope: Construct, id: string, props: UsagePlansProps) {
    super(scope, id);
    const stackName = Stack.of(this).stackName;
    // Not a credential and not secret: with `apiKeySourceType: AUTHORIZER` API Gateway reads usage
    // keys only from this stack's authorizer, never from a request, so knowing it grants nothing.
    // It names the default plan because the key belongs to it (decision 198): API Gateway keeps one
    // key per value, and the next default plan's key is created while this one still exists.
    const fallbackKeyValue = `${stackName}-fallback-usage-key-${props.defaultPlan}`;

    const fn = new AppFunction(this, 'AuthorizerFunction', {
      entry: join(HANDLERS_DIR, 'usage-plan-authorizer.ts'),
      description: 'Usage-plan authorizer: names the usage key each authenticated request counts against',
      logRetention: props.logRetention,
      systemLogLevel: props.systemLogLevel,
      logEncryptionKey: props.encryptionKey,
      removalPolicy: props.removalPolicy,
    }).readsTable(props.table);
    fn.addEnvironment('FALLBACK_USAGE_KEY', fallbackKeyValue);

    this.authorizer = new RequestAuthorizer(this, 'Authorizer', {
      authorizerName: `${stackName}-usage-plans`,
      handler: fn,
      identitySources: [IdentitySource.header('X-API-Key')],
      resultsCacheTtl: AUTHORIZER_CACHE_TTL,
    });

    for (const [name, plan] of Object.entries(props.plans)) {
      this.plans[name] = props.api.addUsagePlan(`Plan-${name}`, {
        name: `${stackName}-${name}`,
        description: `Usage plan "${name}": requests per second and quota per workspace`,
        throttle: { rateLimit: plan.rateLimit, burstLimit: plan.burstLimit },
        ...(plan.quota ? { quota: { limit: plan.quota.limit, period: periods[plan.quota.period] } } : {}),
        apiStages: [{ api: props.api, stage: props.api.deploymentStage }],
      });
    }
    // A usage plan, not a stage, is what makes a key count: like the workspaces' keys, it names none.
    // One key per default plan, never one key moved: CloudFormation would link it to the new plan
    // before unlinking it from the old, and API Gateway refuses a key in two plans on one stage
    // (aws/aws-cdk#11876). A new default plan gets a new key; the old goes in the update's cleanup.
    const fallbackKey = new ApiKey(this, `FallbackUsageKey-${props.defaultPlan}`, {
      apiKeyName: `${stackName}-fallback-${props.defaultPlan}`,
      value: fallbackKeyValue,
      description: 'Counts the requests of workspaces without a usage key of their own, in the default usage plan',
    });
    this.plans[props.defaultPlan]!.addApiKey(fallbackKey);

    new CfnOutput(this, 'UsagePlansOutput', {
      key: 'UsagePlans',
      value: Stack.of(this).toJsonString({ defaultPlan: props.defaultPlan, plans: Object.fromEntries(Object.entries(this.plans).map(([name, plan]) => [name, plan.usagePlanId])) }),
      description: 'Usage plan ids by name, and the default plan (admin CLI: workspace update --usage-plan)',
    });
  }
}
