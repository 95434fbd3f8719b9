import { RetentionDays } from 'aws-cdk-lib/aws-logs';
import type { Node } from 'constructs';
import { z } from 'zod';
import { usagePlanNameSchema } from '../lambdas/domain/workspaces/workspace';
import { METRICS_SERVICE } from '../lambdas/shared/metric-names';
import { issueLine } from '../lambdas/shared/zod-issues';

/**
 * Deploy-time settings, from CDK context (`cdk.json`, or `-c key=value` on the command line).
 * Parsed once with zod so a typo fails the synth with a clear message instead of deploying.
 */
/** `-c key=true` arrives as a string, cdk.json's as a boolean. */
const booleanFlag = z.union([z.boolean(), z.enum(['true', 'false']).transform((value) => value === 'true')], { error: 'true or false' });

/**
 * Tags the stack puts on every taggable resource, under the `tags` setting's: `service` (which
 * `tags` may replace) and `stack`, the stack's own name, by which a teardown finds exactly this
 * stage's leftovers and no other stage's whose name starts the same (docs/deploy.md, "Teardown").
 */
export const SERVICE_TAG = { service: METRICS_SERVICE } as const;
export const STACK_TAG = 'stack';

/** Every tag the stack puts on its resources: SERVICE_TAG, the `tags` setting's over it, then STACK_TAG. */
export function resourceTags(tags: Record<string, string>, stackName: string): Record<string, string> {
  return { ...SERVICE_TAG, ...tags, [STACK_TAG]: stackName };
}

/** User tags AWS allows on one resource (Lambda, SQS, DynamoDB, IAM, SNS, KMS, API Gateway alike; `aws:` ones aside). */
const AWS_TAGS_PER_RESOURCE = 50;

/** The retention periods CloudWatch Logs offers, in days (CDK's enum, whose 9999 keeps logs forever). */
const LOG_RETENTION_DAYS: number[] = Object.values(RetentionDays).filter((days): days is RetentionDays => typeof days === 'number');

/** A context value that is an object in cdk.json, or its JSON text on the command line (`-c tags='{"team":"x"}'`). */
function jsonObject<T extends z.ZodType>(inner: T) {
  return z.preprocess((value) => {
    if (typeof value !== 'string') return value;
    try {
      return JSON.parse(value) as unknown;
    } catch {
      return value;
    }
  }, inner);
}

/** AWS reserves `aws:` for its own tags, in any mix of case and for keys and values alike: the deploy refuses it. */
const reservedByAws = (text: string) => text.toLowerCase().startsWith('aws:');

function checkTagKeys(tags: Record<string, string>, context: z.RefinementCtx): void {
  for (const key of Object.keys(tags)) {
    const message = reservedByAws(key)
      ? 'tag keys starting with "aws:", in any case, are reserved'
      : key === STACK_TAG
        ? `the "${STACK_TAG}" tag is the stack's name, set by the stack`
        : /^[\w .:/=+@-]{1,128}$/.test(key)
        ? undefined
        : 'a tag key is 1-128 letters, digits, spaces or _.:/=+-@';
    if (message) context.addIssue({ code: 'custom', path: [key], message });
  }
  // Counted as the stack applies them, so a `service` here, which replaces the stack's own, is not one more.
  const count = Object.keys(resourceTags(tags, '')).length;
  if (count > AWS_TAGS_PER_RESOURCE) {
    const own = Object.keys(resourceTags({}, '')).length;
    context.addIssue({
      code: 'custom',
      path: [],
      message: `at most ${AWS_TAGS_PER_RESOURCE - own} tags besides "service": with the stack's "service" and "stack" these are ${count} on every resource, and AWS allows ${AWS_TAGS_PER_RESOURCE}`,
    });
  }
}

/**
 * One API Gateway usage plan: a steady rate and a burst (requests per second) per workspace, and
 * optionally a quota of requests per day, week or month.
 */
const usagePlanSchema = z.strictObject({
  rateLimit: z.number().positive(),
  burstLimit: z.number().int().positive(),
  quota: z.strictObject({ limit: z.number().int().positive(), period: z.enum(['DAY', 'WEEK', 'MONTH']) }).optional(),
});

export type UsagePlanSetting = z.infer<typeof usagePlanSchema>;

/** Auto scaling bounds of provisioned capacity, in units a second. */
const capacityBoundsSchema = z
  .strictObject({ min: z.number().int().min(1), max: z.number().int().min(1).max(40_000) })
  .refine((bounds) => bounds.min <= bounds.max, { message: 'min must not exceed max', path: ['min'] });

/** A lower-case DNS name of two labels or more, without the trailing dot. */
const hostname = /^(?=.{1,253}$)([a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?\.)+[a-z]{2,63}$/;

/** Whether a resource's ARN is in the stack's region and account, when those are given (both or neither). */
function inStackEnvironment(arn: string, config: { account?: string | undefined; region?: string | undefined }): boolean {
  const [, , , region, account] = arn.split(':');
  return (config.region === undefined || region === config.region) && (config.account === undefined || account === config.account);
}

const schema = z.object({
  stage: z.string().regex(/^[a-z][a-z0-9-]{0,19}$/, 'lower-case letters, digits and "-", starting with a letter'),
  /** `retain` keeps the table and queues when the stack is deleted (production); `destroy` removes them. */
  removalPolicy: z.enum(['retain', 'destroy']),
  throttlingRateLimit: z.coerce.number().positive(),
  throttlingBurstLimit: z.coerce.number().int().positive(),
  logRetentionDays: z.coerce
    .number()
    .int()
    .refine((days) => LOG_RETENTION_DAYS.includes(days), `one of CloudWatch Logs' retention periods: ${LOG_RETENTION_DAYS.join(', ')} days`),
  /** Secrets Manager secret holding { accessToken, appSecret, verifyToken, phoneNumberId? }. */
  whatsappSecretName: z
    .string()
    .regex(/^[\w/+=.@-]{1,512}$/, 'a Secrets Manager secret name (letters, digits and /_+=.@-), not its ARN: the functions are granted the name'),
  /** WhatsApp Graph API base URL, with its version. */
  // The functions send the WhatsApp access token there, as a Bearer header: never in clear text.
  graphApiBaseUrl: z
    .url({ protocol: /^https$/, error: 'an https URL: the functions send the WhatsApp access token there' })
    .refine((url) => !url.endsWith('/'), 'the Graph API URL with its version and no trailing "/" (https://graph.facebook.com/v26.0)'),
  /** Subscribed by email to the alarm topic when given (the address confirms it once). */
  alarmEmail: z.email().optional(),
  /**
   * The target account and region. Both or neither: without them the template is
   * environment-agnostic (`AWS::Region`, `AWS::AccountId`), resolved by `cdk deploy`'s credentials.
   * Never looked up: synth stays offline.
   */
  account: z.string().regex(/^\d{12}$/, 'an AWS account id: 12 digits').optional(),
  region: z.string().regex(/^[a-z]{2}(-gov|-iso[a-z]*)?-[a-z]+-\d$/, 'an AWS region such as ap-southeast-3').optional(),
  /** Tags on every resource of the stack that supports them (cost allocation, ownership), besides SERVICE_TAG and STACK_TAG. */
  tags: jsonObject(
    z
      .record(
        z.string(),
        // AWS's tag rules (Lambda's TagResource refuses the rest at deploy, rolling the stack back).
        z
          .string()
          .max(256, 'tag values are at most 256 characters')
          .regex(/^[\p{L}\p{Z}\p{N}_.:/=+@-]*$/u, 'a tag value is letters, digits, spaces or _.:/=+-@')
          .refine((value) => !reservedByAws(value), 'tag values starting with "aws:", in any case, are reserved'),
      )
      .superRefine(checkTagKeys),
  ).default({}),
  /**
   * At most this many deliver consumer invocations at once (the SQS event source's
   * `maxConcurrency`, 2-1000): a global cap on provider calls, not a per-number pace (docs/deploy.md).
   */
  deliverMaxConcurrency: z.coerce.number().int().min(2).max(1000),
  /**
   * A WhatsApp sending number's throughput, messages a second (1-1000; Meta: 80 by default, 1,000
   * once upgraded): the deliver consumer paces every number to it, but a workspace's own number
   * whose `whatsappMessagesPerSecond` setting says otherwise (docs/deploy.md, "Delivery pace").
   */
  whatsappMessagesPerSecond: z.coerce.number().int().min(1).max(1000).default(80),
  /**
   * API Gateway's CloudWatch role is one per account and region. `true` makes this stack set it
   * (exactly one stack per account and region should); `false` leaves the account's as it is.
   */
  apiGatewayCloudWatchRole: booleanFlag,
  /**
   * Where WhatsApp's callbacks (three a delivered, read message) come in: `restApi` (default), a
   * route of the REST API with every other; `httpApi`, an HTTP API of their own at under a third of
   * the price, without WAF, the contract's gateway error bodies or the custom domain; `functionUrl`, a
   * Lambda function URL with no price per request, without WAF, API Gateway's throttle and access log
   * or the custom domain (docs/deploy.md).
   */
  webhookFrontDoor: z.enum(['restApi', 'httpApi', 'functionUrl']).default('restApi'),
  /**
   * The table's capacity (decision 94). Absent: on demand, billed per request. Given
   * (`{"readUnits":{"min":5,"max":200},"writeUnits":{"min":20,"max":1000},"targetUtilizationPercent":70}`):
   * provisioned, auto scaled between `min` and `max` units a second at the target utilisation, the
   * table and each index alike. Cheaper for steady traffic; a burst beyond the provisioned units
   * is throttled until auto scaling catches up (docs/deploy.md, "Table capacity").
   */
  tableCapacity: jsonObject(
    z.strictObject({
      readUnits: capacityBoundsSchema,
      writeUnits: capacityBoundsSchema,
      targetUtilizationPercent: z.number().int().min(20).max(90).default(70),
    }),
  ).optional(),
  /**
   * Lambda's own log records for every function: `INFO` (Lambda's default) writes a start and a
   * report record per invocation; `WARN` leaves them out (about 1.5 KB of logs a message, with the
   * REPORT line's duration and memory); `DEBUG` adds Lambda's detailed records.
   */
  systemLogLevel: z.enum(['DEBUG', 'INFO', 'WARN']).default('INFO'),
  /** A WAFv2 web ACL (regional) to associate with the API stage, by ARN. */
  webAclArn: z.string().regex(/^arn:aws[a-z-]*:wafv2:[a-z0-9-]+:\d{12}:regional\/webacl\/[\w-]+\/[\w-]+$/, 'a regional WAFv2 web ACL ARN (arn:aws:wafv2:<region>:<account>:regional/webacl/<name>/<id>)').optional(),
  /** A custom domain for the API (`api.example.com`), with `certificateArn`: both or neither. */
  domainName: z.string().regex(hostname, 'a domain name such as api.example.com').optional(),
  /** A regional ACM certificate for `domainName`, in the stack's region, by ARN. */
  certificateArn: z.string().regex(/^arn:aws[a-z-]*:acm:[a-z0-9-]+:\d{12}:certificate\/[\w-]+$/, 'an ACM certificate ARN (arn:aws:acm:<region>:<account>:certificate/<id>)').optional(),
  /** The Route 53 public hosted zone that gets an alias A record for `domainName`, by id and name: both or neither. */
  hostedZoneId: z.string().regex(/^Z[A-Z0-9]{1,31}$/, 'a Route 53 hosted zone id such as Z0123456789ABCDEFGHIJ').optional(),
  hostedZoneName: z.string().regex(hostname, 'a zone name such as example.com').optional(),
  /**
   * A customer-managed KMS key, by ARN, for the table, the queues, the log groups and the alarm
   * topic. Its key policy must already let CloudWatch Logs and CloudWatch use it: an imported
   * key's policy is not the stack's to change (docs/deploy.md). Needs `account` and `region`.
   */
  kmsKeyArn: z.string().regex(/^arn:aws[a-z-]*:kms:[a-z0-9-]+:\d{12}:key\/[\w-]+$/, 'a KMS key ARN (arn:aws:kms:<region>:<account>:key/<id>); an alias is not accepted').optional(),
  /**
   * API Gateway usage plans by name (`{"standard":{"rateLimit":50,"burstLimit":100,"quota":{"limit":1000000,"period":"MONTH"}}}`):
   * with them every authenticated route gets the usage-plan authorizer and counts each workspace's
   * requests against its plan (decision 69). Absent: no authorizer and no plan.
   */
  usagePlans: jsonObject(
    z
      .record(z.string(), usagePlanSchema)
      .refine((plans) => Object.keys(plans).length > 0, 'name at least one plan, or leave usagePlans out')
      // zod's own record-key error says only "Invalid key in record"; this one says what a name is.
      .superRefine((plans, context) => {
        for (const name of Object.keys(plans)) {
          const checked = usagePlanNameSchema.safeParse(name);
          if (!checked.success) context.addIssue({ code: 'custom', path: [name], message: checked.error.issues[0]!.message });
        }
      }),
  ).optional(),
  /** The plan of workspaces that have none of their own; may be left out when there is one plan. */
  defaultUsagePlan: z.optional(usagePlanNameSchema),
})
  .refine((config) => (config.account === undefined) === (config.region === undefined), { message: 'give both account and region, or neither', path: ['region'] })
  .refine((config) => (config.domainName === undefined) === (config.certificateArn === undefined), { message: 'give both domainName and certificateArn, or neither', path: ['certificateArn'] })
  // API Gateway uses an ACM certificate of its own account only: the deploy would fail at the domain name.
  .refine((config) => config.certificateArn === undefined || inStackEnvironment(config.certificateArn, config), {
    message: 'a regional endpoint needs a certificate in the stack\'s region and account',
    path: ['certificateArn'],
  })
  // AWS WAF associates a web ACL with resources of its own region (and account) only: the deploy would fail at the association.
  .refine((config) => config.webAclArn === undefined || inStackEnvironment(config.webAclArn, config), {
    message: 'a web ACL in the stack\'s region and account',
    path: ['webAclArn'],
  })
  // DynamoDB names a replica's key by region, so a customer-managed key needs the region spelled out.
  .refine((config) => config.kmsKeyArn === undefined || config.kmsKeyArn.split(':')[3] === config.region, {
    message: 'give account and region, and a key in that region',
    path: ['kmsKeyArn'],
  })
  .refine((config) => (config.hostedZoneId === undefined) === (config.hostedZoneName === undefined), { message: 'give both hostedZoneId and hostedZoneName, or neither', path: ['hostedZoneName'] })
  .refine((config) => config.hostedZoneName === undefined || config.domainName !== undefined, { message: 'a hosted zone needs domainName', path: ['domainName'] })
  // Route 53 serves an alias A record at the zone's apex as well as below it.
  .refine((config) => config.hostedZoneName === undefined || config.domainName === undefined || config.domainName === config.hostedZoneName || config.domainName.endsWith(`.${config.hostedZoneName}`), {
    message: 'domainName must be a name inside hostedZoneName',
    path: ['domainName'],
  })
  .refine((config) => config.defaultUsagePlan === undefined || config.usagePlans?.[config.defaultUsagePlan] !== undefined, {
    message: 'name one of the plans in usagePlans',
    path: ['defaultUsagePlan'],
  })
  .refine((config) => config.usagePlans === undefined || config.defaultUsagePlan !== undefined || Object.keys(config.usagePlans).length === 1, {
    message: 'with more than one usage plan, say which one workspaces without a plan get',
    path: ['defaultUsagePlan'],
  })
  // The stage throttle caps each route's requests from every caller together (API Gateway applies it per method): a plan above it would promise what no route can give.
  .refine((config) => Object.values(config.usagePlans ?? {}).every((plan) => plan.rateLimit <= config.throttlingRateLimit && plan.burstLimit <= config.throttlingBurstLimit), {
    message: 'a plan\'s rateLimit and burstLimit must not exceed the stage\'s throttlingRateLimit and throttlingBurstLimit',
    path: ['usagePlans'],
  });

export type StackConfig = z.infer<typeof schema>;
export type TableCapacitySetting = NonNullable<StackConfig['tableCapacity']>;
export type SystemLogLevelSetting = StackConfig['systemLogLevel'];

export const contextKeys = Object.keys(schema.shape) as (keyof StackConfig)[];

/** The plan workspaces without one of their own count against: the one named, or the only one. */
export function defaultUsagePlanOf(config: Pick<StackConfig, 'usagePlans' | 'defaultUsagePlan'>): string | undefined {
  return config.defaultUsagePlan ?? Object.keys(config.usagePlans ?? {})[0];
}

/** A context value the stack refuses: the operator's to mend, so its message is the whole story. */
export class InvalidStackConfigError extends Error {
  override name = 'InvalidStackConfigError';
}

export function readStackConfig(node: Node): StackConfig {
  const unknown = unknownContextKeys(node);
  if (unknown.length) throw new InvalidStackConfigError(`Invalid CDK context: ${unknown.join('; ')}`);
  const raw = Object.fromEntries(contextKeys.map((key) => [key, node.tryGetContext(key)]));
  const parsed = schema.safeParse(raw);
  if (!parsed.success) {
    throw new InvalidStackConfigError(`Invalid CDK context: ${issueLine(parsed.error)}`);
  }
  return parsed.data;
}

/**
 * CDK's context keys without a `@`, `:` or `/` in them: the CLI's (`cdk acknowledge`, `cdk
 * cli-telemetry`) and aws-cdk-lib's legacy synthesizer's (its assets' ECR repository).
 */
const CDK_PLAIN_KEYS = new Set(['acknowledged-issue-numbers', 'cli-telemetry', 'assets-ecr-repository-name']);

/**
 * Context keys that are not a setting of this stack, each with the one probably meant: `-c
 * stge=prod` would otherwise deploy the dev stage, and `-c webAcl=…` a stack without its WAF. CDK
 * keeps its own keys in the context too, all with a `@`, `:` or `/` in them (`@aws-cdk/…` flags,
 * `aws:cdk:…`, `availability-zones:…` lookups), but for the few above.
 */
function unknownContextKeys(node: Node): string[] {
  const known = new Set<string>(contextKeys);
  return Object.keys(node.getAllContext() as Record<string, unknown>).flatMap((key) => {
    if (known.has(key) || CDK_PLAIN_KEYS.has(key) || /[@:/]/.test(key)) return [];
    const meant = settingMeant(key);
    return [`${key}: not a setting of this stack (${meant ? `did you mean ${meant}?` : 'README.md lists the settings'})`];
  });
}

/** The setting a name is probably a slip for: the same but for case, a shortening of it (`webAcl`), or two edits away. */
function settingMeant(key: string): string | undefined {
  const typed = key.toLowerCase();
  const settings = contextKeys.map((setting) => ({ setting, name: setting.toLowerCase() }));
  return (
    settings.find(({ name }) => name === typed) ??
    settings.find(({ name }) => typed.length >= 4 && name.includes(typed)) ??
    settings.find(({ name }) => editDistance(name, typed) <= 2)
  )?.setting;
}

/** Levenshtein distance: how many one-character edits make `a` into `b`. */
function editDistance(a: string, b: string): number {
  let previous = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const current = [i];
    for (let j = 1; j <= b.length; j++) current[j] = Math.min(previous[j]! + 1, current[j - 1]! + 1, previous[j - 1]! + (a[i - 1] === b[j - 1] ? 0 : 1));
    previous = current;
  }
  return previous[b.length]!;
}
