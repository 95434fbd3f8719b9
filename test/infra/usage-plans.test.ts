import { Match, type Template } from 'aws-cdk-lib/assertions';
import { routeEntries } from '../../lambdas/routes';
import { synthStack, unacknowledgedNagFindings } from '../support/synth';

/**
 * Usage plans (context usagePlans, decision 69), as the template shows them. They cannot be
 * exercised here without an AWS account (docs/deploy.md): what API Gateway is told to do is tested.
 */
const PLANS = {
  usagePlans: { standard: { rateLimit: 50, burstLimit: 100, quota: { limit: 1_000_000, period: 'MONTH' } }, bulk: { rateLimit: 100, burstLimit: 200 } },
  defaultUsagePlan: 'standard',
};
const { app, stack, template } = synthStack(PLANS);

const resourcesOf = (type: string, from = template) => Object.entries(from.findResources(type));
const logicalIdOf = (type: string) => resourcesOf(type)[0]![0];
const authorizerFunction = (from = template) => resourcesOf('AWS::Lambda::Function', from).find(([, fn]) => (fn.Properties.Description as string).startsWith('Usage-plan authorizer'))!;
const planNamed = (name: string) => resourcesOf('AWS::ApiGateway::UsagePlan').find(([, plan]) => plan.Properties.UsagePlanName === `MessagingApi-dev-${name}`)!;
const renderedGatewayBody = (properties: Record<string, unknown>) =>
  JSON.parse(((properties.ResponseTemplates as Record<string, string>)['application/json'] ?? '').replace('$context.error.messageString', '"msg"').replace('$context.requestId', 'req')) as Record<string, unknown>;

describe('without usagePlans (the default)', () => {
  const { template: plain } = synthStack();

  it('has no authorizer, no usage plan and no API Gateway key, and reads no key source', () => {
    for (const type of ['AWS::ApiGateway::Authorizer', 'AWS::ApiGateway::UsagePlan', 'AWS::ApiGateway::ApiKey', 'AWS::ApiGateway::UsagePlanKey']) plain.resourceCountIs(type, 0);
    const [, api] = resourcesOf('AWS::ApiGateway::RestApi', plain)[0]!;
    expect(api.Properties.ApiKeySourceType).toBeUndefined();
    const methods = resourcesOf('AWS::ApiGateway::Method', plain).map(([, method]) => method.Properties);
    expect(methods.every((method) => method.AuthorizationType === 'NONE' && method.ApiKeyRequired === undefined)).toBe(true);
    expect(Object.keys(plain.findOutputs('UsagePlans'))).toEqual([]);
  });
});

describe('with usagePlans', () => {
  it('takes usage keys only from the authorizer, never from a request header', () => {
    template.hasResourceProperties('AWS::ApiGateway::RestApi', { ApiKeySourceType: 'AUTHORIZER' });
  });

  it('has one REQUEST authorizer on X-API-Key, its answer cached 300 s, backed by the authorizer function', () => {
    template.resourceCountIs('AWS::ApiGateway::Authorizer', 1);
    template.hasResourceProperties('AWS::ApiGateway::Authorizer', {
      Type: 'REQUEST',
      IdentitySource: 'method.request.header.X-API-Key',
      AuthorizerResultTtlInSeconds: 300,
      AuthorizerUri: { 'Fn::Join': ['', Match.arrayWith([{ 'Fn::GetAtt': [authorizerFunction()[0], 'Arn'] }])] },
    });
  });

  it('puts the authorizer and apiKeyRequired on every authenticated route, and on no public one', () => {
    const authorizerId = logicalIdOf('AWS::ApiGateway::Authorizer');
    const methods = Object.fromEntries(resourcesOf('AWS::ApiGateway::Method').map(([, method]) => [method.Properties.OperationName as string, method.Properties]));
    for (const [routeId, route] of routeEntries) {
      if (route.scope) expect([routeId, methods[routeId]]).toEqual([routeId, expect.objectContaining({ AuthorizationType: 'CUSTOM', AuthorizerId: { Ref: authorizerId }, ApiKeyRequired: true })]);
      else expect([routeId, methods[routeId]!.AuthorizationType, methods[routeId]!.ApiKeyRequired]).toEqual([routeId, 'NONE', undefined]);
    }
    // The public routes by name: health, and the WhatsApp webhook's handshake and callbacks.
    expect(routeEntries.filter(([, route]) => !route.scope).map(([routeId]) => routeId).sort()).toEqual(['health', 'whatsappWebhook', 'whatsappWebhookVerify']);
  });

  it('makes each plan a usage plan on the stage with its throttle and quota', () => {
    template.resourceCountIs('AWS::ApiGateway::UsagePlan', 2);
    const stage = { Ref: logicalIdOf('AWS::ApiGateway::Stage') };
    expect(planNamed('standard')[1].Properties).toMatchObject({
      Throttle: { RateLimit: 50, BurstLimit: 100 },
      Quota: { Limit: 1_000_000, Period: 'MONTH' },
      ApiStages: [expect.objectContaining({ Stage: stage })],
    });
    expect(planNamed('bulk')[1].Properties).toMatchObject({ Throttle: { RateLimit: 100, BurstLimit: 200 }, ApiStages: [expect.objectContaining({ Stage: stage })] });
    expect(planNamed('bulk')[1].Properties.Quota).toBeUndefined();
  });

  it('counts workspaces without a key of their own against one fallback key in the default plan, the value the authorizer hands out', () => {
    template.resourceCountIs('AWS::ApiGateway::ApiKey', 1);
    const [keyId, key] = resourcesOf('AWS::ApiGateway::ApiKey')[0]!;
    template.resourceCountIs('AWS::ApiGateway::UsagePlanKey', 1);
    template.hasResourceProperties('AWS::ApiGateway::UsagePlanKey', { KeyId: { Ref: keyId }, KeyType: 'API_KEY', UsagePlanId: { Ref: planNamed('standard')[0] } });
    expect(authorizerFunction()[1].Properties.Environment.Variables.FALLBACK_USAGE_KEY).toBe(key.Properties.Value);
    expect(key.Properties).toMatchObject({ Name: 'MessagingApi-dev-fallback-standard', Value: 'MessagingApi-dev-fallback-usage-key-standard' });
    expect(key.Properties.StageKeys).toBeUndefined();
  });

  it('lets the authorizer function read the table and nothing else', () => {
    const [logicalId, fn] = authorizerFunction();
    expect(Object.keys(fn.Properties.Environment.Variables)).toEqual(expect.arrayContaining(['TABLE_NAME', 'FALLBACK_USAGE_KEY']));
    const actions = resourcesOf('AWS::IAM::Policy')
      .filter(([, policy]) => (policy.Properties.Roles as { Ref: string }[]).some((role) => role.Ref.startsWith(logicalId.replace(/[0-9A-F]{8}$/, ''))))
      .flatMap(([, policy]) => policy.Properties.PolicyDocument.Statement as { Action: string | string[] }[])
      .flatMap((statement) => [statement.Action].flat());
    expect(actions).toContain('dynamodb:GetItem');
    expect(actions.filter((action) => /Put|Update|Delete|Write|sqs:|secretsmanager:/.test(action))).toEqual([]);
    // One function more than without plans: every route's, the consumer, the reconciler, the sync,
    // the webhook events' publisher and consumer, and this one.
    template.resourceCountIs('AWS::Lambda::Function', routeEntries.length + 7);
  });

  it('outputs the plans’ ids by name and the default plan, for the admin CLI', () => {
    const output = Object.values(template.findOutputs('UsagePlans'))[0]!;
    const json = JSON.stringify(output.Value);
    for (const [name] of Object.entries(PLANS.usagePlans)) expect(json).toContain(planNamed(name)[0]);
    expect(json).toContain('\\"defaultPlan\\":\\"standard\\"');
  });

  it('answers the authorizer’s refusal, its failure, and the plans’ limits in the contract error body', () => {
    const byType = Object.fromEntries(resourcesOf('AWS::ApiGateway::GatewayResponse').map(([, resource]) => [resource.Properties.ResponseType as string, resource.Properties]));
    expect(byType.UNAUTHORIZED).toMatchObject({ StatusCode: '401' });
    expect(renderedGatewayBody(byType.UNAUTHORIZED)).toEqual({ success: false, error: 'unauthorized', message: 'A valid API key is required in the X-API-Key header', requestId: 'req' });
    // A Lambda authorizer that throws anything but "Unauthorized" (the table unreachable), times out or
    // is throttled is AUTHORIZER_CONFIGURATION_ERROR to API Gateway, not AUTHORIZER_FAILURE (decision 221).
    for (const type of ['AUTHORIZER_CONFIGURATION_ERROR', 'AUTHORIZER_FAILURE', 'INVALID_API_KEY']) {
      expect(byType[type]).toMatchObject({ StatusCode: '503', ResponseParameters: { 'gatewayresponse.header.Retry-After': "'1'" } });
      expect(renderedGatewayBody(byType[type])).toMatchObject({ success: false, error: 'service_unavailable' });
    }
    expect(byType.THROTTLED).toMatchObject({ StatusCode: '429', ResponseParameters: { 'gatewayresponse.header.Retry-After': "'1'" } });
    expect(byType.QUOTA_EXCEEDED).toMatchObject({ StatusCode: '429' });
    expect(byType.QUOTA_EXCEEDED!.ResponseParameters['gatewayresponse.header.Retry-After']).toBeUndefined();
    for (const type of ['THROTTLED', 'QUOTA_EXCEEDED']) expect(renderedGatewayBody(byType[type])).toMatchObject({ success: false, error: 'rate_limited' });
    for (const properties of Object.values(byType)) expect(Object.keys(renderedGatewayBody(properties)).sort()).toEqual(['error', 'message', 'requestId', 'success']);
  });

  it('access-logs the workspace, our key id and the usage key the authorizer named', () => {
    const [, stage] = resourcesOf('AWS::ApiGateway::Stage')[0]!;
    const format = JSON.parse(stage.Properties.AccessLogSetting.Format as string) as Record<string, string>;
    expect(format).toMatchObject({ workspaceId: '$context.authorizer.workspaceId', apiKeyId: '$context.authorizer.apiKeyId', usageKey: '$context.authorizer.usageKey', status: '$context.status' });
  });

  it('leaves no cdk-nag finding unacknowledged, alone or with every other optional setting', () => {
    expect(unacknowledgedNagFindings(app, stack)).toEqual([]);
    const everything = synthStack({
      ...PLANS,
      account: '123456789012',
      region: 'ap-southeast-3',
      apiGatewayCloudWatchRole: true,
      webAclArn: 'arn:aws:wafv2:ap-southeast-3:123456789012:regional/webacl/messaging/0a1b2c3d-0000-4000-8000-000000000001',
      kmsKeyArn: 'arn:aws:kms:ap-southeast-3:123456789012:key/0a1b2c3d-0000-4000-8000-000000000003',
    });
    expect(unacknowledgedNagFindings(everything.app, everything.stack)).toEqual([]);
  });

  it('takes the only plan as the default when there is one', () => {
    const { template: single } = synthStack({ usagePlans: '{"basic":{"rateLimit":10,"burstLimit":20,"quota":{"limit":5000,"period":"DAY"}}}' });
    single.hasResourceProperties('AWS::ApiGateway::UsagePlan', { UsagePlanName: 'MessagingApi-dev-basic', Quota: { Limit: 5000, Period: 'DAY' } });
    single.resourceCountIs('AWS::ApiGateway::UsagePlanKey', 1);
  });
});

/**
 * A deployed stack whose default plan changes. CloudFormation creates a resource (a new logical id,
 * or a replacement) before it deletes the one it replaces, in the cleanup phase after the rest of
 * the update, and API Gateway refuses a key in two plans on one stage (aws/aws-cdk#11876): a key
 * the stack keeps must never be linked to another plan, or the update fails.
 */
describe('changing the default plan of a deployed stack', () => {
  const linksOf = (from: Template) =>
    resourcesOf('AWS::ApiGateway::UsagePlanKey', from).map(([, link]) => `${(link.Properties.KeyId as { Ref: string }).Ref} -> ${(link.Properties.UsagePlanId as { Ref: string }).Ref}`);
  const keysOf = (from: Template) => resourcesOf('AWS::ApiGateway::ApiKey', from);

  it.each([
    ['switched', { ...PLANS, defaultUsagePlan: 'bulk' }, 'bulk'],
    ['renamed', { usagePlans: { premium: PLANS.usagePlans.standard, bulk: PLANS.usagePlans.bulk }, defaultUsagePlan: 'premium' }, 'premium'],
    ['removed', { usagePlans: { bulk: PLANS.usagePlans.bulk } }, 'bulk'],
  ])('%s: links no kept key to another plan; a new fallback key, which the authorizer names, joins the new default plan', (_change, context, defaultPlan) => {
    const { template: after } = synthStack(context);
    const kept = new Set(keysOf(template).map(([id]) => id));
    expect(linksOf(after).filter((link) => kept.has(link.split(' -> ')[0]!) && !linksOf(template).includes(link))).toEqual([]);
    const [[keyId, key]] = keysOf(after) as [[string, { Properties: Record<string, unknown> }]];
    const [planId] = resourcesOf('AWS::ApiGateway::UsagePlan', after).find(([, plan]) => plan.Properties.UsagePlanName === `MessagingApi-dev-${defaultPlan}`)!;
    expect(linksOf(after)).toEqual([`${keyId} -> ${planId}`]);
    expect(authorizerFunction(after)[1].Properties.Environment.Variables.FALLBACK_USAGE_KEY).toBe(key.Properties.Value);
  });

  // API Gateway keeps one key per value in an account and region: the new key is created while the
  // old one (and, on the upgrade to decision 198, the one before it) still exists.
  it('gives each default plan a fallback key of its own value, none the key of the releases before decision 198 had', () => {
    const values = ['standard', 'bulk'].map((plan) => keysOf(synthStack({ ...PLANS, defaultUsagePlan: plan }).template)[0]![1].Properties.Value as string);
    expect(new Set([...values, 'MessagingApi-dev-fallback-usage-key']).size).toBe(3);
  });
});

describe('invalid usage plan settings', () => {
  const standard = { rateLimit: 50, burstLimit: 100 };
  it.each([
    [{ usagePlans: {} }, /usagePlans: name at least one plan, or leave usagePlans out/],
    [{ usagePlans: '{"standard":' }, /usagePlans: /],
    [{ usagePlans: { 'a plan': standard } }, /usagePlans.a plan: a usage plan name/],
    [{ usagePlans: { standard: { rateLimit: 50 } } }, /usagePlans.standard.burstLimit: /],
    [{ usagePlans: { standard: { ...standard, quota: { limit: 10, period: 'YEAR' } } } }, /usagePlans.standard.quota.period: /],
    [{ usagePlans: { standard: { ...standard, burst: 1 } } }, /usagePlans.standard: Unrecognized key/],
    [{ usagePlans: { standard: { rateLimit: 500, burstLimit: 100 } } }, /usagePlans: a plan's rateLimit and burstLimit must not exceed the stage's throttlingRateLimit and throttlingBurstLimit/],
    [{ usagePlans: { standard, bulk: standard } }, /defaultUsagePlan: with more than one usage plan, say which one workspaces without a plan get/],
    [{ usagePlans: { standard }, defaultUsagePlan: 'bulk' }, /defaultUsagePlan: name one of the plans in usagePlans/],
    [{ defaultUsagePlan: 'standard' }, /defaultUsagePlan: name one of the plans in usagePlans/],
  ])('%j fails the synth naming the key', (context, message) => {
    expect(() => synthStack(context)).toThrow(/^Invalid CDK context: /);
    expect(() => synthStack(context)).toThrow(message);
  });
});
