import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Match } from 'aws-cdk-lib/assertions';
import cdkJson from '../../cdk.json';
import { synthStack, unacknowledgedNagFindings } from '../support/synth';

/**
 * Each deploy setting (CDK context, lib/stack-config.ts), as the template shows it. None can be
 * exercised here without an account (docs/deploy.md); what the template says is what is tested.
 */
const WEB_ACL = 'arn:aws:wafv2:ap-southeast-3:123456789012:regional/webacl/messaging/0a1b2c3d-0000-4000-8000-000000000001';
const CERTIFICATE = 'arn:aws:acm:ap-southeast-3:123456789012:certificate/0a1b2c3d-0000-4000-8000-000000000002';
const DOMAIN = { domainName: 'api.example.com', certificateArn: CERTIFICATE };
const ZONE = { hostedZoneId: 'Z0123456789ABCDEFGHIJ', hostedZoneName: 'example.com' };
const KMS_KEY = 'arn:aws:kms:ap-southeast-3:123456789012:key/0a1b2c3d-0000-4000-8000-000000000003';
/** `count` tags of the `tags` setting's, none the stack's own. */
const manyTags = (count: number) => Object.fromEntries(Array.from({ length: count }, (_, i) => [`team${i}`, 'payments']));
const templateText = (template: ReturnType<typeof synthStack>['template']) => JSON.stringify(template.toJSON());
let withDefaults: ReturnType<typeof synthStack> | undefined;
/** The stack of cdk.json's context alone, synthesized once for the file: the tests only read it. */
const defaultSynth = () => (withDefaults ??= synthStack());
const defaultTemplate = () => defaultSynth().template;

describe('account and region', () => {
  it('without them the template is environment-agnostic, whatever the CLI’s default region', () => {
    const previous = process.env.CDK_DEFAULT_REGION;
    process.env.CDK_DEFAULT_REGION = 'us-east-1';
    try {
      // As `cdk synth` runs it: the CLI asks for version reporting, whose resource names regions.
      const { template } = synthStack({ 'aws:cdk:version-reporting': true });
      expect(templateText(template)).not.toContain('us-east-1');
      template.hasResourceProperties('AWS::DynamoDB::GlobalTable', { Replicas: [Match.objectLike({ Region: { Ref: 'AWS::Region' } })] });
    } finally {
      if (previous === undefined) delete process.env.CDK_DEFAULT_REGION;
      else process.env.CDK_DEFAULT_REGION = previous;
    }
  });

  it('with them the stack, and the table’s one replica, are in that region', () => {
    const { stack, template } = synthStack({ account: '123456789012', region: 'ap-southeast-3' });
    expect([stack.account, stack.region]).toEqual(['123456789012', 'ap-southeast-3']);
    template.hasResourceProperties('AWS::DynamoDB::GlobalTable', { Replicas: [Match.objectLike({ Region: 'ap-southeast-3' })] });
    expect(templateText(template)).not.toContain('us-east-1');
  });
});

describe('tags', () => {
  it('tags every taggable resource with `-c tags=<json>`’s tags beside the service and the stack’s exact name, which a teardown filters on', () => {
    const { template } = synthStack({ tags: '{"team":"payments","cost-center":"cc-42"}' });
    const expected = [
      { Key: 'cost-center', Value: 'cc-42' },
      { Key: 'service', Value: 'messaging-api' },
      { Key: 'stack', Value: 'MessagingApi-dev' },
      { Key: 'team', Value: 'payments' },
    ];
    template.hasResourceProperties('AWS::Lambda::Function', { Tags: expected });
    template.hasResourceProperties('AWS::SQS::Queue', { Tags: expected });
    template.hasResourceProperties('AWS::DynamoDB::GlobalTable', { Replicas: [Match.objectLike({ Tags: expected })] });
    // What a teardown leaves behind carries the stack's name: log groups and keys too.
    template.hasResourceProperties('AWS::Logs::LogGroup', { Tags: expected });
    template.hasResourceProperties('AWS::KMS::Key', { Tags: expected });
    defaultTemplate().hasResourceProperties('AWS::SQS::Queue', {
      Tags: [
        { Key: 'service', Value: 'messaging-api' },
        { Key: 'stack', Value: 'MessagingApi-dev' },
      ],
    });
    synthStack({ stage: 'prod-eu', tags: { service: 'payments-messaging' } }).template.hasResourceProperties('AWS::SQS::Queue', {
      Tags: [
        { Key: 'service', Value: 'payments-messaging' },
        { Key: 'stack', Value: 'MessagingApi-prod-eu' },
      ],
    });
  });

  // AWS allows 50 user tags a resource, and the stack's `service` and `stack` are two of them
  // everywhere; a `service` here replaces the stack's own, so it is not one more (decision 221).
  it('takes 48 tags beside a `service` of its own, every function then carrying AWS’s 50', () => {
    const { template } = synthStack({ tags: { ...manyTags(48), service: 'payments-messaging' } });
    for (const fn of Object.values(template.findResources('AWS::Lambda::Function'))) expect((fn.Properties.Tags as unknown[]).length).toBe(50);
  });

  it('refuses a 49th, which would be 51 on every resource, naming AWS’s limit at synth rather than failing the deploy', () => {
    for (const tags of [manyTags(49), { ...manyTags(48), service: 'payments-messaging', team48: 'payments' }]) expect(() => synthStack({ tags })).toThrow(/^Invalid CDK context: tags: .*AWS allows 50/);
  });
});

describe('deliver concurrency', () => {
  it('caps the deliver consumer’s concurrent invocations (2 by default)', () => {
    defaultTemplate().hasResourceProperties('AWS::Lambda::EventSourceMapping', { ScalingConfig: { MaximumConcurrency: 2 } });
    synthStack({ deliverMaxConcurrency: 8 }).template.hasResourceProperties('AWS::Lambda::EventSourceMapping', { ScalingConfig: { MaximumConcurrency: 8 } });
  });

  it('paces every WhatsApp number at whatsappMessagesPerSecond (80 by default), knowing the cap, and lets the consumer queue again what it holds back', () => {
    const deliverer = (variables: Record<string, string>) => ({ Description: Match.stringLikeRegexp('^Delivers'), Environment: { Variables: Match.objectLike(variables) } });
    defaultTemplate().hasResourceProperties('AWS::Lambda::Function', deliverer({ WHATSAPP_MESSAGES_PER_SECOND: '80', DELIVER_MAX_CONCURRENCY: '2' }));
    synthStack({ whatsappMessagesPerSecond: 1000, deliverMaxConcurrency: 20 }).template.hasResourceProperties('AWS::Lambda::Function', deliverer({ WHATSAPP_MESSAGES_PER_SECOND: '1000', DELIVER_MAX_CONCURRENCY: '20' }));
    const { stack, template } = defaultSynth();
    expect(roleStatements(stack, template, stack.delivery.deliverFunction).flatMap((statement) => [statement.Action].flat())).toEqual(
      expect.arrayContaining(['sqs:SendMessage', 'sqs:ReceiveMessage', 'sqs:DeleteMessage', 'sqs:ChangeMessageVisibility']),
    );
  });

  it('lets the reconciler read how long the dispatch queue has held its oldest message (decision 137), and nothing else of CloudWatch', () => {
    const { stack, template } = defaultSynth();
    const cloudwatch = roleStatements(stack, template, stack.delivery.reconcileFunction).filter((statement) => [statement.Action].flat().some((action) => action.startsWith('cloudwatch:')));
    expect(cloudwatch).toEqual([{ Action: 'cloudwatch:GetMetricStatistics', Effect: 'Allow', Resource: '*' }]);
  });
});

/** The statements of the policies on a function's role, as synthesized. */
function roleStatements(stack: ReturnType<typeof synthStack>['stack'], template: ReturnType<typeof synthStack>['template'], fn: { role?: { node: { defaultChild?: unknown } } }) {
  const role = stack.resolve((fn.role!.node.defaultChild as { ref: string }).ref) as { Ref: string };
  return Object.values(template.findResources('AWS::IAM::Policy'))
    .filter((policy) => (policy.Properties.Roles as unknown[]).some((ref) => JSON.stringify(ref) === JSON.stringify(role)))
    .flatMap((policy) => policy.Properties.PolicyDocument.Statement as { Action: string | string[]; Effect: string; Resource: unknown }[]);
}

describe('API Gateway’s CloudWatch role', () => {
  it('is left to the account by default, and set by the one stack given apiGatewayCloudWatchRole=true', () => {
    const template = defaultTemplate();
    template.resourceCountIs('AWS::ApiGateway::Account', 0);
    const { template: owner } = synthStack({ apiGatewayCloudWatchRole: 'true' });
    owner.resourceCountIs('AWS::ApiGateway::Account', 1);
    owner.hasResource('AWS::ApiGateway::Account', { DeletionPolicy: 'Retain' });
  });
});

describe('WAF', () => {
  it('associates the web ACL given by ARN with the stage, and none otherwise', () => {
    defaultTemplate().resourceCountIs('AWS::WAFv2::WebACLAssociation', 0);
    const { template } = synthStack({ webAclArn: WEB_ACL });
    template.hasResourceProperties('AWS::WAFv2::WebACLAssociation', { WebACLArn: WEB_ACL, ResourceArn: Match.objectLike({ 'Fn::Join': Match.anyValue() }) });
  });
});

describe('custom domain', () => {
  it('maps the stage at the root of a regional domain with the given certificate, and outputs its URL', () => {
    const none = defaultTemplate();
    none.resourceCountIs('AWS::ApiGateway::DomainName', 0);
    expect(Object.keys(none.findOutputs('CustomUrl'))).toEqual([]);
    const { template } = synthStack(DOMAIN);
    template.hasResourceProperties('AWS::ApiGateway::DomainName', {
      DomainName: 'api.example.com',
      RegionalCertificateArn: CERTIFICATE,
      EndpointConfiguration: { Types: ['REGIONAL'] },
      SecurityPolicy: 'TLS_1_2',
    });
    template.hasResourceProperties('AWS::ApiGateway::BasePathMapping', { Stage: Match.anyValue(), RestApiId: Match.anyValue() });
    template.resourceCountIs('AWS::Route53::RecordSet', 0);
    template.hasOutput('CustomUrl', { Value: 'https://api.example.com/' });
  });

  it('adds an alias A record in the hosted zone given by id and name, without a lookup', () => {
    const { template } = synthStack({ ...DOMAIN, ...ZONE });
    template.hasResourceProperties('AWS::Route53::RecordSet', {
      HostedZoneId: 'Z0123456789ABCDEFGHIJ',
      Name: 'api.example.com.',
      Type: 'A',
      AliasTarget: Match.objectLike({ DNSName: Match.anyValue(), HostedZoneId: Match.anyValue() }),
    });
  });

  // Route 53 serves an alias A record at a zone's apex, so the apex is a name inside the zone (decision 221).
  it('puts the API at the hosted zone’s apex, with the alias record there', () => {
    const { template } = synthStack({ ...DOMAIN, ...ZONE, domainName: 'example.com' });
    template.hasResourceProperties('AWS::Route53::RecordSet', { HostedZoneId: 'Z0123456789ABCDEFGHIJ', Name: 'example.com.', Type: 'A' });
  });
});

describe('customer-managed KMS key', () => {
  it('encrypts the table, every queue, every log group and the alarm topic with the key given by ARN', () => {
    const { template } = synthStack({ kmsKeyArn: KMS_KEY, account: '123456789012', region: 'ap-southeast-3' });
    template.hasResourceProperties('AWS::DynamoDB::GlobalTable', {
      SSESpecification: { SSEEnabled: true, SSEType: 'KMS' },
      Replicas: [Match.objectLike({ SSESpecification: { KMSMasterKeyId: KMS_KEY } })],
    });
    const queues = Object.values(template.findResources('AWS::SQS::Queue'));
    // The dispatch queue, the webhook-events queue, their DLQs and the stream publisher's failures.
    expect(queues.map((queue) => queue.Properties.KmsMasterKeyId)).toEqual([KMS_KEY, KMS_KEY, KMS_KEY, KMS_KEY, KMS_KEY]);
    const logGroups = Object.values(template.findResources('AWS::Logs::LogGroup'));
    expect(logGroups.length).toBeGreaterThan(1);
    expect(logGroups.every((group) => group.Properties.KmsKeyId === KMS_KEY)).toBe(true);
    template.hasResourceProperties('AWS::SNS::Topic', { KmsMasterKeyId: KMS_KEY });
    // The key is imported: the stack creates none, and leaves the key's policy alone.
    template.resourceCountIs('AWS::KMS::Key', 0);
  });

  it('grants the functions the key where they read or write the table or queues', () => {
    const { template } = synthStack({ kmsKeyArn: KMS_KEY, account: '123456789012', region: 'ap-southeast-3' });
    const keyStatements = Object.values(template.findResources('AWS::IAM::Policy'))
      .flatMap((policy) => policy.Properties.PolicyDocument.Statement as { Action: string | string[]; Resource: unknown }[])
      .filter((statement) => JSON.stringify(statement.Resource) === JSON.stringify(KMS_KEY));
    const actions = new Set(keyStatements.flatMap((statement) => [statement.Action].flat()));
    expect([...actions]).toEqual(expect.arrayContaining(['kms:Decrypt', 'kms:GenerateDataKey*']));
  });

  it('without it, keeps AWS-managed encryption and the alarm topic’s own key', () => {
    const template = defaultTemplate();
    const queues = Object.values(template.findResources('AWS::SQS::Queue'));
    expect(queues.map((queue) => queue.Properties.SqsManagedSseEnabled)).toEqual([true, true, true, true, true]);
    template.resourceCountIs('AWS::KMS::Key', 1);
    expect(Object.values(template.findResources('AWS::Logs::LogGroup')).some((group) => group.Properties.KmsKeyId)).toBe(false);
  });
});

describe('access logs', () => {
  it('log the fields the runbook queries: status, latency, integration latency and status, error type', () => {
    const stage = Object.values(defaultTemplate().findResources('AWS::ApiGateway::Stage'))[0]!;
    const format = JSON.parse(stage.Properties.AccessLogSetting.Format as string) as Record<string, string>;
    expect(format).toMatchObject({
      requestId: '$context.requestId',
      resourcePath: '$context.resourcePath',
      status: '$context.status',
      responseLatency: '$context.responseLatency',
      integrationLatency: '$context.integrationLatency',
      integrationStatus: '$context.integrationStatus',
      errorType: '$context.error.responseType',
    });
  });
});

describe('webhook front door', () => {
  const webhookMethods = (template: ReturnType<typeof synthStack>['template']) =>
    Object.values(template.findResources('AWS::ApiGateway::Method')).filter((method) => JSON.stringify(method).includes('WhatsappWebhook'));

  it('is the REST API by default: the webhook routes are REST methods and there is no HTTP API', () => {
    const template = defaultTemplate();
    template.resourceCountIs('AWS::ApiGatewayV2::Api', 0);
    expect(webhookMethods(template)).toHaveLength(2);
  });

  it('with webhookFrontDoor=httpApi, WhatsApp calls an HTTP API of its own: payload 1.0 to the same functions, throttled and access-logged, its URL the sandbox’s and the output', () => {
    const { template } = synthStack({ webhookFrontDoor: 'httpApi' });
    template.resourceCountIs('AWS::ApiGatewayV2::Api', 1);
    // The REST route stays, so the deploy that switches refuses none of the callbacks sent, or retried, to the URL registered before.
    expect(webhookMethods(template)).toHaveLength(2);
    const routeKeys = Object.values(template.findResources('AWS::ApiGatewayV2::Route')).map((route) => route.Properties.RouteKey as string);
    expect(routeKeys.sort()).toEqual(['GET /webhooks/whatsapp', 'POST /webhooks/whatsapp']);
    template.allResourcesProperties('AWS::ApiGatewayV2::Integration', { IntegrationType: 'AWS_PROXY', PayloadFormatVersion: '1.0' });
    const stage = Object.values(template.findResources('AWS::ApiGatewayV2::Stage'))[0]!;
    expect(stage.Properties).toMatchObject({ StageName: '$default', AutoDeploy: true, DefaultRouteSettings: { ThrottlingRateLimit: 100, ThrottlingBurstLimit: 200 } });
    expect(JSON.parse(stage.Properties.AccessLogSettings.Format as string)).toMatchObject({ requestId: '$context.requestId', status: '$context.status', integrationStatus: '$context.integrationStatus' });
    const webhookApi = Object.keys(template.findResources('AWS::ApiGatewayV2::Api'))[0]!;
    const callbackUrl = { 'Fn::Join': ['', [{ 'Fn::GetAtt': [webhookApi, 'ApiEndpoint'] }, '/webhooks/whatsapp']] };
    template.hasResourceProperties('AWS::Lambda::Function', { Description: Match.stringLikeRegexp('^Delivers'), Environment: { Variables: Match.objectLike({ SANDBOX_CALLBACK_URL: callbackUrl }) } });
    template.hasOutput('WebhookUrl', { Value: callbackUrl });
  });

  it('with webhookFrontDoor=functionUrl, WhatsApp calls a public function URL: one function for both routes, with both routes’ access, its executions capped, its URL the sandbox’s and the output', () => {
    const { template } = synthStack({ webhookFrontDoor: 'functionUrl' });
    // The REST route stays, so the deploy that switches refuses none of the callbacks sent, or retried, to the URL registered before.
    expect(webhookMethods(template)).toHaveLength(2);
    template.resourceCountIs('AWS::ApiGatewayV2::Api', 0);
    const functions = template.findResources('AWS::Lambda::Function', { Properties: { Description: Match.stringLikeRegexp('/webhooks/whatsapp on a function URL') } });
    expect(Object.keys(functions)).toHaveLength(1);
    const [callbacks, fn] = Object.entries(functions)[0]!;
    expect(fn.Properties).toMatchObject({
      ReservedConcurrentExecutions: 50,
      Environment: { Variables: { TABLE_NAME: expect.anything(), WHATSAPP_SECRET_NAME: expect.anything() } },
    });
    template.resourceCountIs('AWS::Lambda::Url', 1);
    template.hasResourceProperties('AWS::Lambda::Url', { AuthType: 'NONE', InvokeMode: 'BUFFERED', TargetFunctionArn: { 'Fn::GetAtt': [callbacks, 'Arn'] } });
    // Lambda asks for both actions on a public URL; the second only through the URL, so nobody may invoke the function directly.
    template.hasResourceProperties('AWS::Lambda::Permission', { Action: 'lambda:InvokeFunctionUrl', Principal: '*', FunctionUrlAuthType: 'NONE', FunctionName: { 'Fn::GetAtt': [callbacks, 'Arn'] } });
    template.hasResourceProperties('AWS::Lambda::Permission', { Action: 'lambda:InvokeFunction', Principal: '*', InvokedViaFunctionUrl: true, FunctionName: { 'Fn::GetAtt': [callbacks, 'Arn'] } });
    // Writes the table (status callbacks), reads the WhatsApp secret (signature, verify token).
    const role = (fn.Properties.Role as { 'Fn::GetAtt': [string, string] })['Fn::GetAtt'][0];
    const policies = Object.values(template.findResources('AWS::IAM::Policy')).filter((policy) => JSON.stringify(policy.Properties.Roles) === JSON.stringify([{ Ref: role }]));
    const actions = JSON.stringify(policies.map((policy) => policy.Properties.PolicyDocument));
    for (const action of ['dynamodb:PutItem', 'dynamodb:UpdateItem', 'secretsmanager:GetSecretValue']) expect(actions).toContain(action);
    const url = Object.keys(template.findResources('AWS::Lambda::Url'))[0]!;
    const callbackUrl = { 'Fn::Join': ['', [{ 'Fn::GetAtt': [url, 'FunctionUrl'] }, 'webhooks/whatsapp']] };
    template.hasResourceProperties('AWS::Lambda::Function', { Description: Match.stringLikeRegexp('^Delivers'), Environment: { Variables: Match.objectLike({ SANDBOX_CALLBACK_URL: callbackUrl }) } });
    template.hasOutput('WebhookUrl', { Value: callbackUrl });
  });

  it.each(['httpApi', 'functionUrl'])('with webhookFrontDoor=%s, leaves no cdk-nag finding unacknowledged and passes CloudFormation validation', (webhookFrontDoor) => {
    const { app, stack, validationFindings } = synthStack({ webhookFrontDoor }, { validate: true });
    expect(unacknowledgedNagFindings(app, stack)).toEqual([]);
    expect(validationFindings).toEqual([]);
  });
});

describe('table capacity', () => {
  const tableOf = (template: ReturnType<typeof synthStack>['template']) => Object.values(template.findResources('AWS::DynamoDB::GlobalTable'))[0]!.Properties;
  const scaled = (min: number, max: number, target: number) => ({ MinCapacity: min, MaxCapacity: max, SeedCapacity: max, TargetTrackingScalingPolicyConfiguration: { TargetValue: target } });

  it('is on demand by default: no provisioned throughput anywhere', () => {
    const table = tableOf(defaultTemplate());
    expect(table.BillingMode).toBe('PAY_PER_REQUEST');
    expect(JSON.stringify(table)).not.toContain('ProvisionedThroughputSettings');
  });

  it('with tableCapacity, is provisioned and auto scaled, the table and each index alike, seeded at the maximum for a switch from on demand', () => {
    const table = tableOf(synthStack({ tableCapacity: '{"readUnits":{"min":5,"max":200},"writeUnits":{"min":20,"max":1000},"targetUtilizationPercent":60}' }).template);
    const writes = { WriteCapacityAutoScalingSettings: scaled(20, 1000, 60) };
    const reads = { ReadCapacityAutoScalingSettings: scaled(5, 200, 60) };
    expect(table.BillingMode).toBe('PROVISIONED');
    expect(table.WriteProvisionedThroughputSettings).toEqual(writes);
    const indexes = table.GlobalSecondaryIndexes as { WriteProvisionedThroughputSettings: unknown }[];
    expect(indexes.map((index) => index.WriteProvisionedThroughputSettings)).toEqual([writes, writes, writes, writes]);
    expect(table.Replicas[0].ReadProvisionedThroughputSettings).toEqual(reads);
    expect(table.Replicas[0].GlobalSecondaryIndexes).toEqual([
      { IndexName: 'gsi1', ReadProvisionedThroughputSettings: reads },
      { IndexName: 'gsi2', ReadProvisionedThroughputSettings: reads },
      { IndexName: 'gsi3', ReadProvisionedThroughputSettings: reads },
      { IndexName: 'gsi4', ReadProvisionedThroughputSettings: reads },
    ]);
  });

  it('targets 70 % utilisation unless told otherwise', () => {
    const table = tableOf(synthStack({ tableCapacity: { readUnits: { min: 1, max: 10 }, writeUnits: { min: 1, max: 10 } } }).template);
    expect(table.WriteProvisionedThroughputSettings.WriteCapacityAutoScalingSettings.TargetTrackingScalingPolicyConfiguration).toEqual({ TargetValue: 70 });
  });
});

describe('system log level', () => {
  const levels = (template: ReturnType<typeof synthStack>['template']) =>
    new Set(Object.values(template.findResources('AWS::Lambda::Function')).map((fn) => fn.Properties.LoggingConfig?.SystemLogLevel as string | undefined));

  it('is Lambda’s default, INFO, for every function unless set', () => {
    expect(levels(defaultTemplate())).toEqual(new Set(['INFO']));
  });

  it('with systemLogLevel=WARN, every function leaves out Lambda’s start and report records', () => {
    expect(levels(synthStack({ systemLogLevel: 'WARN' }).template)).toEqual(new Set(['WARN']));
  });
});

describe('every optional setting on at once', () => {
  it('leaves no cdk-nag finding unacknowledged and passes CloudFormation validation', () => {
    const { app, stack, validationFindings } = synthStack(
      { account: '123456789012', region: 'ap-southeast-3', apiGatewayCloudWatchRole: true, webAclArn: WEB_ACL, ...DOMAIN, ...ZONE, kmsKeyArn: KMS_KEY, tableCapacity: { readUnits: { min: 5, max: 50 }, writeUnits: { min: 5, max: 50 } }, systemLogLevel: 'WARN' },
      { validate: true },
    );
    expect(unacknowledgedNagFindings(app, stack)).toEqual([]);
    expect(validationFindings).toEqual([]);
  });
});

describe('invalid settings', () => {
  it.each([
    [{ account: '1234' }, /account: an AWS account id: 12 digits/],
    [{ account: '123456789012' }, /region: give both account and region, or neither/],
    [{ region: 'ap-southeast-3' }, /region: give both account and region, or neither/],
    [{ account: '123456789012', region: 'Jakarta' }, /region: an AWS region such as ap-southeast-3/],
    [{ tags: { 'aws:owner': 'x' } }, /tags.aws:owner: tag keys starting with "aws:", in any case, are reserved/],
    // AWS reserves the prefix in any mix of case, for values as well as keys.
    [{ tags: { 'AWS:owner': 'x' } }, /tags.AWS:owner: tag keys starting with "aws:", in any case, are reserved/],
    [{ tags: { owner: 'Aws:payments' } }, /tags.owner: tag values starting with "aws:", in any case, are reserved/],
    [{ tags: { stack: 'x' } }, /tags.stack: the "stack" tag is the stack's name, set by the stack/],
    [{ tags: '{"team":' }, /tags: /],
    // AWS's tag rules: Lambda's TagResource refuses these values at deploy, rolling the stack back.
    [{ tags: { team: 'payments, growth' } }, /tags.team: a tag value is letters, digits, spaces or _.:\/=\+-@/],
    [{ tags: { wiki: 'https://wiki.example.com/x?a=1&b=2' } }, /tags.wiki: /],
    // The functions are granted the secret by name (`<name>-??????`): an ARN would be granted a secret no one has.
    [{ whatsappSecretName: 'arn:aws:secretsmanager:ap-southeast-3:123456789012:secret:messaging-api/whatsapp-AbCdEf' }, /whatsappSecretName: a Secrets Manager secret name .*not its ARN/],
    [{ whatsappSecretName: 'messaging api/whatsapp' }, /whatsappSecretName: /],
    [{ graphApiBaseUrl: 'https://graph.facebook.com/v26.0/' }, /graphApiBaseUrl: /],
    // The functions send the WhatsApp access token to it, as a Bearer header.
    [{ graphApiBaseUrl: 'http://graph.facebook.com/v26.0' }, /graphApiBaseUrl: an https URL/],
    [{ deliverMaxConcurrency: 1 }, /deliverMaxConcurrency: /],
    [{ deliverMaxConcurrency: 1001 }, /deliverMaxConcurrency: /],
    [{ whatsappMessagesPerSecond: 0 }, /whatsappMessagesPerSecond: /],
    [{ whatsappMessagesPerSecond: 1001 }, /whatsappMessagesPerSecond: /],
    [{ apiGatewayCloudWatchRole: 'yes' }, /apiGatewayCloudWatchRole: true or false$/],
    [{ webhookFrontDoor: 'loadBalancer' }, /webhookFrontDoor: /],
    [{ tableCapacity: { readUnits: { min: 50, max: 5 }, writeUnits: { min: 5, max: 50 } } }, /tableCapacity.readUnits.min: min must not exceed max/],
    [{ tableCapacity: { readUnits: { min: 5, max: 50 }, writeUnits: { min: 5, max: 50 }, targetUtilizationPercent: 95 } }, /tableCapacity.targetUtilizationPercent: /],
    [{ tableCapacity: { readUnits: { min: 5, max: 50 } } }, /tableCapacity.writeUnits: /],
    [{ tableCapacity: '{"readUnits":' }, /tableCapacity: /],
    [{ systemLogLevel: 'ERROR' }, /systemLogLevel: /],
    [{ webAclArn: 'arn:aws:wafv2:ap-southeast-3:123456789012:global/webacl/x/y' }, /webAclArn: a regional WAFv2 web ACL ARN/],
    // AWS WAF: a web ACL protects resources in its own region only; the association would fail the deploy.
    [{ webAclArn: WEB_ACL, account: '123456789012', region: 'eu-west-1' }, /webAclArn: a web ACL in the stack's region and account/],
    [{ webAclArn: WEB_ACL, account: '210987654321', region: 'ap-southeast-3' }, /webAclArn: a web ACL in the stack's region and account/],
    [{ domainName: 'api.example.com' }, /certificateArn: give both domainName and certificateArn, or neither/],
    [{ certificateArn: CERTIFICATE }, /certificateArn: give both domainName and certificateArn, or neither/],
    [{ ...DOMAIN, domainName: 'API.example.com.' }, /domainName: a domain name such as api.example.com/],
    [{ ...DOMAIN, certificateArn: 'arn:aws:iam::123456789012:server-certificate/x' }, /certificateArn: an ACM certificate ARN/],
    [{ ...DOMAIN, account: '123456789012', region: 'eu-west-1' }, /certificateArn: a regional endpoint needs a certificate in the stack's region/],
    // API Gateway uses a certificate of its own account only: another's fails the deploy at the domain name.
    [{ ...DOMAIN, account: '210987654321', region: 'ap-southeast-3' }, /certificateArn: a regional endpoint needs a certificate in the stack's region and account/],
    [{ ...DOMAIN, hostedZoneId: 'Z0123456789ABCDEFGHIJ' }, /hostedZoneName: give both hostedZoneId and hostedZoneName, or neither/],
    [{ ...DOMAIN, ...ZONE, hostedZoneId: 'zone-1' }, /hostedZoneId: a Route 53 hosted zone id/],
    [{ ...ZONE }, /domainName: a hosted zone needs domainName/],
    [{ kmsKeyArn: 'arn:aws:kms:ap-southeast-3:123456789012:alias/messaging' }, /kmsKeyArn: a KMS key ARN/],
    [{ kmsKeyArn: KMS_KEY, account: '123456789012', region: 'eu-west-1' }, /kmsKeyArn: give account and region, and a key in that region/],
    [{ kmsKeyArn: KMS_KEY }, /kmsKeyArn: give account and region, and a key in that region/],
    [{ ...DOMAIN, ...ZONE, hostedZoneName: 'example.org' }, /domainName: domainName must be a name inside hostedZoneName/],
  ])('%j fails the synth naming the key', (context, message) => {
    expect(() => synthStack(context)).toThrow(/^Invalid CDK context: /);
    expect(() => synthStack(context)).toThrow(message);
  });

  it('is one line from the CDK app, as `cdk synth` and `cdk deploy` print it, and no stack trace', () => {
    const outdir = mkdtempSync(join(tmpdir(), 'cdk-app-'));
    try {
      // How the CDK CLI runs bin/app.ts: cdk.json's context with the `-c` values over it, in the environment.
      const run = spawnSync(process.execPath, ['--import', 'tsx', 'bin/app.ts'], {
        cwd: join(__dirname, '..', '..'),
        encoding: 'utf8',
        env: { ...process.env, CDK_OUTDIR: outdir, CDK_CONTEXT_JSON: JSON.stringify({ ...cdkJson.context, webhookFrontDoor: 'restapi', alarmEmail: 'ops' }) },
      });
      expect([run.status, run.stdout]).toEqual([1, '']);
      expect(run.stderr.trimEnd().split('\n')).toEqual(['Invalid CDK context: alarmEmail: Invalid email address; webhookFrontDoor: Invalid option: expected one of "restApi"|"httpApi"|"functionUrl"']);
    } finally {
      rmSync(outdir, { recursive: true, force: true });
    }
  });
});
