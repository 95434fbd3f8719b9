import { App } from 'aws-cdk-lib';
import { Match } from 'aws-cdk-lib/assertions';
import cdkJson from '../../cdk.json';
import { readStackConfig } from '../../lib/stack-config';
import { routeEntries, routes } from '../../lambdas/routes';
import { tableDefinition } from '../../lambdas/shared/table';
import { dispatchQueueSettings } from '../../lambdas/shared/dispatch-queue-settings';
import { synthStack } from '../support/synth';

const { template } = synthStack();
const functions = () => template.findResources('AWS::Lambda::Function');
const functionFor = (routeId: keyof typeof routes) => {
  const [logicalId, fn] = Object.entries(functions()).find(([, resource]) => (resource.Properties.Description as string).startsWith(`${routes[routeId].method} ${routes[routeId].path}:`))!;
  return { logicalId, properties: fn.Properties as Record<string, unknown> & { Environment?: { Variables: Record<string, unknown> } } };
};
const policyStatementsOf = (logicalId: string) =>
  Object.values(template.findResources('AWS::IAM::Policy'))
    .filter((policy) => (policy.Properties.Roles as { Ref: string }[]).some((role) => role.Ref.startsWith(logicalId.replace(/[0-9A-F]{8}$/, ''))))
    .flatMap((policy) => policy.Properties.PolicyDocument.Statement as { Action: string | string[] }[]);
const actionsOf = (logicalId: string) => policyStatementsOf(logicalId).flatMap((statement) => [statement.Action].flat());

describe('DynamoDB table', () => {
  it('is on-demand, encrypted, with point-in-time recovery, TTL and every planned GSI', () => {
    template.hasResourceProperties('AWS::DynamoDB::GlobalTable', {
      BillingMode: 'PAY_PER_REQUEST',
      KeySchema: [
        { AttributeName: 'pk', KeyType: 'HASH' },
        { AttributeName: 'sk', KeyType: 'RANGE' },
      ],
      TimeToLiveSpecification: { AttributeName: tableDefinition.timeToLiveAttribute, Enabled: true },
      SSESpecification: { SSEEnabled: true },
      Replicas: [Match.objectLike({ PointInTimeRecoverySpecification: { PointInTimeRecoveryEnabled: true }, DeletionProtectionEnabled: true })],
      // The number index carries only keys, so a status move writes nothing to it (decision 100);
      // the report entries only a row's fields, so a claim, a price or a read receipt does not (decision 104).
      GlobalSecondaryIndexes: (
        [
          ['gsi1', { ProjectionType: 'ALL' }],
          ['gsi2', { ProjectionType: 'ALL' }],
          ['gsi3', { ProjectionType: 'KEYS_ONLY' }],
          ['gsi4', { ProjectionType: 'INCLUDE', NonKeyAttributes: [...tableDefinition.indexes.gsi4.nonKeyAttributes] }],
        ] as const
      ).map(([name, projection]) => ({
        IndexName: name,
        KeySchema: [
          { AttributeName: `${name}pk`, KeyType: 'HASH' },
          { AttributeName: `${name}sk`, KeyType: 'RANGE' },
        ],
        Projection: projection,
      })),
    });
  });

  // A stateful resource's logical id is its identity to CloudFormation: a construct renamed or
  // moved makes a new, empty table or queue on the next deploy (the old one retained, orphaned),
  // the functions pointed at the new one, and messages in flight stranded on the old queue. A
  // change here is a data migration, not a refactor (docs/deploy.md).
  it('keeps the logical ids of every stateful resource an upgrade must not replace', () => {
    const stateful = ['AWS::DynamoDB::GlobalTable', 'AWS::SQS::Queue', 'AWS::KMS::Key', 'AWS::SecretsManager::Secret', 'AWS::SNS::Topic'];
    const ids = Object.fromEntries(stateful.map((type) => [type, Object.keys(template.findResources(type)).sort()]));
    expect(ids).toEqual({
      'AWS::DynamoDB::GlobalTable': ['DataTableFDBAD0F2'],
      'AWS::SQS::Queue': ['DispatchDeadLetterQueue3CDCD3A1', 'DispatchQueue716BFD35', 'WebhooksEventsDeadLetterQueue4F85AFCB', 'WebhooksEventsQueue74DAC156', 'WebhooksStreamFailures483EBBE6'],
      'AWS::KMS::Key': ['MonitoringAlarmTopicKeyFFA45DC9'],
      'AWS::SecretsManager::Secret': ['CursorSigningKey255C5A33'],
      'AWS::SNS::Topic': ['MonitoringAlarmTopicAF62D4F1'],
    });
  });

  // Beside them, what an upgrade cannot make anew unnoticed: a table stream's mapping starts at
  // TRIM_HORIZON, so one made anew reads the stream's last 24 hours again (reports counted twice,
  // events published twice, as a rollback across decision 113 can); a REST API made anew has a new
  // URL (every integration's, and the callback URL registered with Meta); a usage plan made anew
  // loses the usage keys the admin CLI added to it.
  it('keeps the logical ids of the table stream mappings, the REST API and its usage plans', () => {
    const streamMappings = Object.entries(template.findResources('AWS::Lambda::EventSourceMapping'))
      .filter(([, mapping]) => JSON.stringify(mapping.Properties.EventSourceArn).includes('StreamArn'))
      .map(([id]) => id)
      .sort();
    const { template: planned } = synthStack({ usagePlans: { standard: { rateLimit: 50, burstLimit: 100 } } });
    expect({ streamMappings, restApi: Object.keys(template.findResources('AWS::ApiGateway::RestApi')), usagePlans: Object.keys(planned.findResources('AWS::ApiGateway::UsagePlan')) }).toEqual({
      streamMappings: ['ReportsProjectFunctionDynamoDBEventSourceMessagingApidevDataTableDC0065DD4E0EA6BA', 'WebhooksPublishFunctionDynamoDBEventSourceMessagingApidevDataTableDC0065DD4969F384'],
      restApi: ['HttpApi4E1D4184'],
      usagePlans: ['HttpApiPlanstandard2E8B1648'],
    });
  });

  it('is retained by default and destroyable by context', () => {
    template.hasResource('AWS::DynamoDB::GlobalTable', { DeletionPolicy: 'Retain', UpdateReplacePolicy: 'Retain' });
    const { template: disposable } = synthStack({ removalPolicy: 'destroy', stage: 'pr1' });
    disposable.hasResource('AWS::DynamoDB::GlobalTable', { DeletionPolicy: 'Delete' });
    disposable.hasResourceProperties('AWS::DynamoDB::GlobalTable', { Replicas: [Match.objectLike({ DeletionProtectionEnabled: false })] });
  });
});

describe('dispatch queue', () => {
  it('is encrypted, redrives to a DLQ after the shared receive count, and outlives a consumer timeout six times over', () => {
    // With the webhook-events queue, its DLQ and the stream publisher's failures (test/infra/webhook-pipeline.test.ts).
    template.resourceCountIs('AWS::SQS::Queue', 5);
    template.hasResourceProperties('AWS::SQS::Queue', {
      SqsManagedSseEnabled: true,
      VisibilityTimeout: dispatchQueueSettings.consumerTimeoutSeconds * 6,
      RedrivePolicy: { deadLetterTargetArn: Match.anyValue(), maxReceiveCount: dispatchQueueSettings.maxReceiveCount },
    });
    template.hasResourceProperties('AWS::SQS::Queue', { SqsManagedSseEnabled: true, MessageRetentionPeriod: dispatchQueueSettings.dlqRetentionDays * 86_400 });
  });

  it('refuses non-TLS access on every queue', () => {
    const policies = template.findResources('AWS::SQS::QueuePolicy');
    expect(Object.keys(policies)).toHaveLength(5);
    for (const policy of Object.values(policies)) {
      expect(policy.Properties.PolicyDocument.Statement).toContainEqual(
        expect.objectContaining({ Effect: 'Deny', Condition: { Bool: { 'aws:SecureTransport': 'false' } } }),
      );
    }
  });
});

describe('functions', () => {
  it('has one function per route, plus the deliver consumer, the reconciler, the template sync, the webhook publisher and consumer and the report projection: Node 22, arm64, untraced (decision 59), JSON logs, source maps', () => {
    expect(Object.keys(functions())).toHaveLength(routeEntries.length + 6);
    for (const [, fn] of Object.entries(functions())) {
      expect(fn.Properties).toMatchObject({
        Runtime: 'nodejs22.x',
        Architectures: ['arm64'],
        LoggingConfig: expect.objectContaining({ LogFormat: 'JSON' }),
        Environment: { Variables: expect.objectContaining({ NODE_OPTIONS: '--enable-source-maps', POWERTOOLS_SERVICE_NAME: 'messaging-api' }) },
      });
      expect(fn.Properties.TracingConfig).toBeUndefined();
    }
    expect(JSON.stringify(template.findResources('AWS::IAM::Policy'))).not.toContain('xray:');
  });

  it('gives /health no table or queue access at all', () => {
    const health = functionFor('health');
    expect(health.properties.Environment?.Variables).not.toHaveProperty('TABLE_NAME');
    expect(actionsOf(health.logicalId).filter((action) => /dynamodb|sqs/.test(action))).toEqual([]);
  });

  it('gives a read route read-only table access and its table name', () => {
    const list = functionFor('listTemplates');
    expect(list.properties.Environment?.Variables).toHaveProperty('TABLE_NAME');
    const actions = actionsOf(list.logicalId);
    expect(actions).toEqual(expect.arrayContaining(['dynamodb:GetItem', 'dynamodb:Query']));
    expect(actions.filter((action) => /^(dynamodb:(Put|Update|Delete|BatchWrite)|sqs:)/.test(action))).toEqual([]);
  });

  // Every read is by key or a query: a role that could Scan would read every workspace's data in a few calls.
  it('grants no function a Scan of the table, nor a stream action on the table itself', () => {
    const policies = Object.values(template.findResources('AWS::IAM::Policy'));
    const actions = policies.flatMap((policy) => (policy.Properties.PolicyDocument.Statement as { Action: string | string[] }[]).flatMap((statement) => [statement.Action].flat()));
    expect(actions).toContain('dynamodb:Query');
    expect(actions.filter((action) => /^dynamodb:(Scan|DescribeTable|\*)$/.test(action))).toEqual([]);
  });

  it('lets only the send route write the table and send to the dispatch queue', () => {
    const send = functionFor('sendMessage');
    expect(send.properties.Environment?.Variables).toEqual(expect.objectContaining({ TABLE_NAME: expect.anything(), QUEUE_URL: expect.anything() }));
    expect(actionsOf(send.logicalId)).toEqual(expect.arrayContaining(['dynamodb:PutItem', 'dynamodb:UpdateItem', 'sqs:SendMessage']));
    for (const routeId of ['getMessage', 'getTemplate', 'previewTemplate'] as const) {
      const fn = functionFor(routeId);
      expect(fn.properties.Environment?.Variables).not.toHaveProperty('QUEUE_URL');
      expect(actionsOf(fn.logicalId).filter((action) => /^(dynamodb:(Put|Update|Delete|BatchWrite)|sqs:)/.test(action))).toEqual([]);
    }
  });

  it('keeps every function’s logs in a log group with the configured retention', () => {
    template.resourcePropertiesCountIs('AWS::Logs::LogGroup', { RetentionInDays: 30 }, routeEntries.length + 6 + 1);
  });
});

describe('template sync', () => {
  const sync = () => Object.entries(functions()).find(([, fn]) => (fn.Properties.Description as string).startsWith('Syncs every workspace'))!;

  it('runs every hour with the WhatsApp secret, the Graph API URL and write access to the table', () => {
    const [logicalId, fn] = sync();
    template.hasResourceProperties('AWS::Events::Rule', {
      ScheduleExpression: 'rate(1 hour)',
      Targets: [Match.objectLike({ Arn: { 'Fn::GetAtt': [logicalId, 'Arn'] } })],
    });
    expect(fn.Properties.Environment.Variables).toEqual(
      expect.objectContaining({ WHATSAPP_SECRET_NAME: 'messaging-api/whatsapp', GRAPH_API_BASE_URL: 'https://graph.facebook.com/v26.0', TABLE_NAME: expect.anything() }),
    );
    expect(actionsOf(logicalId)).toEqual(expect.arrayContaining(['secretsmanager:GetSecretValue', 'dynamodb:Query', 'dynamodb:PutItem']));
    expect(actionsOf(logicalId).filter((action) => action.startsWith('sqs:'))).toEqual([]);
  });

  // A run syncs every workspace, and one workspace Meta refuses (a removed account, a refused
  // token) fails the run: Lambda's two retries of it synced every other workspace twice more, each
  // hour, against the accounts' Graph API limits. The next hourly run is the retry (decision 187).
  it('is not retried by Lambda when a run fails: the next hour’s run is the retry', () => {
    const [logicalId] = sync();
    template.hasResourceProperties('AWS::Lambda::EventInvokeConfig', { FunctionName: { Ref: logicalId }, MaximumRetryAttempts: 0 });
  });
});

describe('delivery', () => {
  const deliver = () => Object.entries(functions()).find(([, fn]) => (fn.Properties.Description as string).startsWith('Delivers queued'))!;
  const reconciler = () => Object.entries(functions()).find(([, fn]) => (fn.Properties.Description as string).startsWith('Re-enqueues'))!;

  it('feeds the dispatch queue to the deliver function in batches with partial batch failures', () => {
    const [logicalId] = deliver();
    template.hasResourceProperties('AWS::Lambda::EventSourceMapping', {
      FunctionName: { Ref: logicalId },
      BatchSize: dispatchQueueSettings.batchSize,
      FunctionResponseTypes: ['ReportBatchItemFailures'],
    });
  });

  it('gives the deliver function a timeout the queue visibility is six times, and the right to delay retries', () => {
    const [logicalId, fn] = deliver();
    expect(fn.Properties.Timeout).toBe(dispatchQueueSettings.consumerTimeoutSeconds);
    expect(actionsOf(logicalId)).toEqual(expect.arrayContaining(['sqs:ReceiveMessage', 'sqs:ChangeMessageVisibility', 'sqs:DeleteMessage', 'secretsmanager:GetSecretValue']));
    expect(fn.Properties.Environment.Variables).toEqual(expect.objectContaining({ SANDBOX_CALLBACK_URL: expect.anything(), WHATSAPP_SECRET_NAME: 'messaging-api/whatsapp' }));
  });

  it('runs the reconciler every minute', () => {
    const [logicalId] = reconciler();
    template.hasResourceProperties('AWS::Events::Rule', {
      ScheduleExpression: 'rate(1 minute)',
      Targets: [Match.objectLike({ Arn: { 'Fn::GetAtt': [logicalId, 'Arn'] } })],
    });
  });

  it('generates the cursor signing key and lets only the cursor-paged routes read it', () => {
    template.hasResourceProperties('AWS::SecretsManager::Secret', { GenerateSecretString: Match.objectLike({ PasswordLength: 48 }) });
    const readers = Object.keys(functions()).filter((logicalId) => {
      const env = (functions()[logicalId]!.Properties.Environment?.Variables ?? {}) as Record<string, unknown>;
      return 'CURSOR_SECRET_NAME' in env;
    });
    expect(readers.sort()).toEqual([functionFor('listConversations').logicalId, functionFor('conversationMessages').logicalId, functionFor('listWebhookDeliveries').logicalId].sort());
  });

  it('lets only the webhook routes, the deliver function and the template sync read the WhatsApp secret', () => {
    const readsWhatsAppSecret = (logicalId: string) =>
      policyStatementsOf(logicalId).some(
        (statement) => [statement.Action].flat().includes('secretsmanager:GetSecretValue') && JSON.stringify(statement).includes(':secret:messaging-api/whatsapp'),
      );
    const readers = Object.keys(functions()).filter(readsWhatsAppSecret);
    const templateSync = Object.entries(functions()).find(([, fn]) => (fn.Properties.Description as string).startsWith('Syncs every workspace'))![0];
    const expected = [functionFor('whatsappWebhook').logicalId, functionFor('whatsappWebhookVerify').logicalId, deliver()[0], templateSync];
    expect(readers.sort()).toEqual(expected.sort());
  });

  it('gives the Graph API URL to the functions that call it: the webhook (an edited template is read again), the deliver function and the template sync', () => {
    const callers = Object.entries(functions()).filter(([, fn]) => 'GRAPH_API_BASE_URL' in ((fn.Properties.Environment?.Variables ?? {}) as Record<string, unknown>));
    const templateSync = Object.entries(functions()).find(([, fn]) => (fn.Properties.Description as string).startsWith('Syncs every workspace'))![0];
    expect(callers.map(([logicalId]) => logicalId).sort()).toEqual([functionFor('whatsappWebhook').logicalId, deliver()[0], templateSync].sort());
    expect(new Set(callers.map(([, fn]) => (fn.Properties.Environment.Variables as Record<string, unknown>).GRAPH_API_BASE_URL))).toEqual(new Set(['https://graph.facebook.com/v26.0']));
  });
});

describe('REST API', () => {
  it('wires every route of the route table to its own function', () => {
    for (const [routeId, route] of routeEntries) {
      const fn = functionFor(routeId);
      template.hasResourceProperties('AWS::ApiGateway::Method', {
        HttpMethod: route.method,
        OperationName: routeId,
        AuthorizationType: 'NONE',
        Integration: Match.objectLike({
          Type: 'AWS_PROXY',
          Uri: { 'Fn::Join': ['', Match.arrayWith([{ 'Fn::GetAtt': [fn.logicalId, 'Arn'] }])] },
        }),
      });
    }
    template.resourceCountIs('AWS::ApiGateway::Method', routeEntries.length);
  });

  // The dispatch list (100 000 rows), tag discovery (100 000 tags of 256 characters), delivery-status (500 busy phones), the unpaged template list and the summary (20 tags each used with thousands of templates) outgrow 6 MB.
  const streamed: (keyof typeof routes)[] = ['trackingDispatches', 'trackingTags', 'deliveryStatus', 'listTemplates', 'trackingSummary'];

  it.each(streamed)('streams the responses of %s, whose body can outgrow Lambda’s 6 MB buffered limit', (routeId) => {
    const fn = functionFor(routeId);
    template.hasResourceProperties('AWS::ApiGateway::Method', {
      OperationName: routeId,
      Integration: Match.objectLike({
        ResponseTransferMode: 'STREAM',
        TimeoutInMillis: 120_000,
        Uri: { 'Fn::Join': ['', Match.arrayWith([Match.stringLikeRegexp('response-streaming-invocations')])] },
      }),
    });
    expect(fn.properties.Timeout).toBe(120);
    expect(fn.properties.MemorySize).toBe(1024);
  });

  it('buffers every other route', () => {
    const buffered = Object.values(template.findResources('AWS::ApiGateway::Method')).filter((method) => !streamed.includes(method.Properties.OperationName as keyof typeof routes));
    expect(buffered).toHaveLength(routeEntries.length - streamed.length);
    expect(buffered.every((method) => method.Properties.Integration.ResponseTransferMode === undefined)).toBe(true);
  });

  it('throttles and access-logs the stage, without X-Ray, and passes multipart bodies as binary', () => {
    template.hasResourceProperties('AWS::ApiGateway::Stage', {
      StageName: 'dev',
      TracingEnabled: false,
      AccessLogSetting: Match.objectLike({ DestinationArn: Match.anyValue() }),
      MethodSettings: [Match.objectLike({ ThrottlingRateLimit: 100, ThrottlingBurstLimit: 200, HttpMethod: '*', ResourcePath: '/*' })],
    });
    template.hasResourceProperties('AWS::ApiGateway::RestApi', { BinaryMediaTypes: ['multipart/form-data'], EndpointConfiguration: { Types: ['REGIONAL'] } });
  });

  it('answers API Gateway’s own errors in the contract error body', () => {
    const responses = Object.values(template.findResources('AWS::ApiGateway::GatewayResponse')).map((resource) => resource.Properties);
    const byType = Object.fromEntries(responses.map((properties) => [properties.ResponseType, properties]));
    expect(byType.MISSING_AUTHENTICATION_TOKEN).toMatchObject({ StatusCode: '404' });
    expect(byType.THROTTLED).toMatchObject({ StatusCode: '429' });
    expect(byType.REQUEST_TOO_LARGE).toMatchObject({ StatusCode: '413' });
    for (const type of ['DEFAULT_4XX', 'DEFAULT_5XX', 'MISSING_AUTHENTICATION_TOKEN', 'THROTTLED', 'REQUEST_TOO_LARGE', 'INTEGRATION_TIMEOUT']) {
      const body = byType[type].ResponseTemplates['application/json'] as string;
      const rendered = JSON.parse(body.replace('$context.error.messageString', '"msg"').replace('$context.requestId', 'req'));
      expect(Object.keys(rendered).sort()).toEqual(['error', 'message', 'requestId', 'success']);
      expect(rendered.success).toBe(false);
    }
  });

  it('outputs the API URL, table name and queue URL', () => {
    for (const output of ['ApiUrl', 'WebhookUrl', 'TableName', 'QueueUrl', 'DeadLetterQueueUrl']) template.hasOutput(output, {});
  });
});

describe('stack configuration', () => {
  it('rejects invalid context with a message naming the key', () => {
    expect(() => synthStack({ stage: 'Prod!' })).toThrow(/Invalid CDK context: stage:/);
    expect(() => synthStack({ logRetentionDays: 31 })).toThrow(/^Invalid CDK context: logRetentionDays: one of CloudWatch Logs' retention periods: 1, 3, 5, 7, 14, 30, 60, 90,/);
  });

  it('rejects a mistyped setting, naming the one meant, rather than deploying without it', () => {
    // `-c stge=prod` would otherwise deploy the dev stage.
    expect(() => synthStack({ stge: 'prod' })).toThrow('Invalid CDK context: stge: not a setting of this stack (did you mean stage?)');
    expect(() => synthStack({ alarmemail: 'ops@example.com', logRetentionDay: 30 })).toThrow(
      'Invalid CDK context: alarmemail: not a setting of this stack (did you mean alarmEmail?); logRetentionDay: not a setting of this stack (did you mean logRetentionDays?)',
    );
    // CDK's own keys pass, those of the CLI too (`cdk acknowledge`, `cdk cli-telemetry`), and the one aws-cdk-lib reads without a `@`, `:` or `/`.
    expect(() => synthStack({ 'aws:cdk:enable-path-metadata': true, 'acknowledged-issue-numbers': [32775], 'cli-telemetry': false, 'assets-ecr-repository-name': 'assets' })).not.toThrow();
  });

  // A shortened name is as easy a slip, and each of these dropped would deploy without a WAF, the
  // customer's key, the retention asked for or the alarms' e-mail.
  const settingsOf = (context: Record<string, unknown>) => readStackConfig(new App({ context: { ...cdkJson.context, ...context } }).node);
  it.each([
    ['webAcl', 'webAclArn'],
    ['kmsKey', 'kmsKeyArn'],
    ['logRetention', 'logRetentionDays'],
    ['email', 'alarmEmail'],
  ])('rejects the shortened %s, naming %s', (key, meant) => {
    expect(() => settingsOf({ [key]: 'x' })).toThrow(`Invalid CDK context: ${key}: not a setting of this stack (did you mean ${meant}?)`);
  });

  it('rejects a name like no setting, pointing to the list', () => {
    expect(() => settingsOf({ wafArn: 'x' })).toThrow('Invalid CDK context: wafArn: not a setting of this stack (README.md lists the settings)');
  });
});
