import { Match } from 'aws-cdk-lib/assertions';
import { thresholds } from '../../lib/constructs/monitoring';
import { metricNames, senderRefusalCodes } from '../../lambdas/shared/metric-names';
import { tableDefinition } from '../../lambdas/shared/table';
import { synthStack } from '../support/synth';

const { template } = synthStack();
const logicalIdOf = (type: string, description: RegExp) =>
  Object.entries(template.findResources(type)).find(([, resource]) => description.test(JSON.stringify(resource.Properties)))![0];
const topic = () => Object.keys(template.findResources('AWS::SNS::Topic'))[0]!;
const alarmNamed = (name: string) => {
  const alarms = Object.values(template.findResources('AWS::CloudWatch::Alarm')).filter((alarm) => alarm.Properties.AlarmName === `MessagingApi-dev-${name}`);
  expect(alarms).toHaveLength(1);
  return alarms[0]!.Properties as Record<string, unknown> & { Metrics?: { Id?: string; Expression?: string; ReturnData?: boolean; MetricStat?: { Metric: { MetricName: string } } }[] };
};

describe('business metrics', () => {
  it('gives every function the stack’s metrics namespace', () => {
    const functions = Object.values(template.findResources('AWS::Lambda::Function'));
    expect(functions.length).toBeGreaterThan(2);
    for (const fn of functions) expect(fn.Properties.Environment.Variables).toMatchObject({ POWERTOOLS_METRICS_NAMESPACE: 'MessagingApi-dev', POWERTOOLS_SERVICE_NAME: 'messaging-api' });
  });
});

describe('alarms', () => {
  it('are exactly the nineteen the runbook explains, each notifying the alarm topic when it fires and when it clears', () => {
    const alarms = Object.values(template.findResources('AWS::CloudWatch::Alarm')).map((alarm) => alarm.Properties);
    expect(alarms.map((alarm) => alarm.AlarmName).sort()).toEqual(
      [
        'api-5xx-rate',
        'deliver-errors',
        'dispatch-queue-age',
        'dlq-not-empty',
        'lambda-throttles',
        'reconciler-failing',
        'reconciler-not-running',
        'reports-behind',
        'stream-batches-failed',
        'stream-consumer-behind',
        'table-throttles',
        'webhook-dlq-not-empty',
        'webhook-endpoint-disabled',
        'webhook-endpoints-failing',
        'webhook-items-skipped',
        'webhook-queue-stalled',
        'whatsapp-account-restricted',
        'whatsapp-sender-refused',
        'whatsapp-token-refused',
      ].map((name) => `MessagingApi-dev-${name}`),
    );
    for (const alarm of alarms) {
      expect(alarm).toMatchObject({
        AlarmActions: [{ Ref: topic() }],
        OKActions: [{ Ref: topic() }],
        AlarmDescription: expect.stringContaining('Runbook: docs/operations.md#'),
      });
      // Every alarm but the one on a reconciler's silence fires on too much, and no data is quiet.
      if (alarm.AlarmName !== 'MessagingApi-dev-reconciler-not-running') expect(alarm).toMatchObject({ ComparisonOperator: 'GreaterThanThreshold', TreatMissingData: 'notBreaching' });
    }
  });

  it('fire on the first message in the DLQ', () => {
    const dlq = logicalIdOf('AWS::SQS::Queue', /"MessageRetentionPeriod":1209600/);
    expect(alarmNamed('dlq-not-empty')).toMatchObject({
      Namespace: 'AWS/SQS',
      MetricName: 'ApproximateNumberOfMessagesVisible',
      Dimensions: [{ Name: 'QueueName', Value: { 'Fn::GetAtt': [dlq, 'QueueName'] } }],
      Statistic: 'Maximum',
      Threshold: thresholds.deadLetterMessages,
      EvaluationPeriods: 1,
    });
  });

  it('fire when the dispatch queue’s oldest message has waited ten minutes, twice running, unless it is one campaign’s backlog that keeps going out', () => {
    const queue = logicalIdOf('AWS::SQS::Queue', /RedrivePolicy/);
    const alarm = alarmNamed('dispatch-queue-age');
    expect(alarm).toMatchObject({ Threshold: 600, EvaluationPeriods: 2, DatapointsToAlarm: 2 });
    const byId = Object.fromEntries(alarm.Metrics!.map((metric) => [metric.Id, metric]));
    expect(alarm.Metrics!.find((metric) => metric.ReturnData !== false)!.Expression).toBe(
      `IF(FILL(quietAge, 0) > 600, age, IF(FILL(sent, 0) > 0, IF(age > ${thresholds.campaignBacklogAgeSeconds}, age, 0), age))`,
    );
    const queueDimension = [{ Name: 'QueueName', Value: { 'Fn::GetAtt': [queue, 'QueueName'] } }];
    expect(byId.age!.MetricStat).toMatchObject({ Metric: { Namespace: 'AWS/SQS', MetricName: 'ApproximateAgeOfOldestMessage', Dimensions: queueDimension }, Stat: 'Maximum' });
    expect(byId.quietAge!.MetricStat).toMatchObject({ Metric: { Namespace: 'AWS/SQS', MetricName: 'ApproximateAgeOfOldestMessageInQuietGroups', Dimensions: queueDimension }, Stat: 'Maximum' });
    expect(byId.sent!.MetricStat).toMatchObject({ Metric: { MetricName: 'MessagesSent', Dimensions: [{ Name: 'service', Value: 'messaging-api' }] }, Stat: 'Sum' });
  });

  // A consumer that stops polling fails nothing, so no message reaches the webhook DLQ: they wait, then expire.
  it('fire when webhook event messages wait on their queue for fifteen minutes and none is received', () => {
    const alarm = alarmNamed('webhook-queue-stalled');
    expect(alarm).toMatchObject({ Threshold: 0, EvaluationPeriods: 3, DatapointsToAlarm: 3 });
    expect(alarm.Metrics!.find((metric) => metric.ReturnData !== false)!.Expression).toBe('IF(FILL(received, 0) == 0, FILL(visible, 0), 0)');
    const byId = Object.fromEntries(alarm.Metrics!.map((metric) => [metric.Id, metric]));
    const queue = { Name: 'QueueName', Value: { 'Fn::GetAtt': [expect.stringMatching(/^WebhooksEvents/), 'QueueName'] } };
    expect(byId.visible!.MetricStat).toMatchObject({ Metric: { Namespace: 'AWS/SQS', MetricName: 'ApproximateNumberOfMessagesVisible', Dimensions: [queue] }, Stat: 'Maximum', Period: 300 });
    expect(byId.received!.MetricStat).toMatchObject({ Metric: { Namespace: 'AWS/SQS', MetricName: 'NumberOfMessagesReceived', Dimensions: [queue] }, Stat: 'Sum', Period: 300 });
  });

  it('fire on a 5xx rate over 5% of the stage’s requests, once there are enough requests to tell', () => {
    const alarm = alarmNamed('api-5xx-rate');
    expect(alarm.Threshold).toBe(thresholds.serverErrorPercent);
    const [expression, ...metrics] = alarm.Metrics!;
    expect(expression!.Expression).toBe(`IF(requests >= ${thresholds.serverErrorMinRequests}, 100 * errors / requests, 0)`);
    expect(metrics.map((metric) => metric.MetricStat!.Metric.MetricName).sort()).toEqual(['5XXError', 'Count']);
    // The stage's Ref is its name: the metrics are the deployed stage's, not every stage's of the API.
    expect(JSON.stringify(metrics)).toMatch(/"Name":"Stage","Value":\{"Ref":"HttpApiDeploymentStage/);
  });

  it.each([
    ['httpApi', 'AWS/ApiGateway', ['Count', '5xx'], 'ApiId'],
    ['functionUrl', 'AWS/Lambda', ['UrlRequestCount', 'Url5xxCount'], 'FunctionName'],
  ])('with webhookFrontDoor=%s, count WhatsApp’s callbacks in the same rate, a quiet side as 0', (webhookFrontDoor, namespace, [count, errors], dimension) => {
    const alarms = Object.values(synthStack({ webhookFrontDoor }).template.findResources('AWS::CloudWatch::Alarm'));
    const alarm = alarms.find((candidate) => candidate.Properties.AlarmName === 'MessagingApi-dev-api-5xx-rate')!.Properties as { Metrics: { Id: string; Expression?: string; ReturnData?: boolean; MetricStat?: { Metric: { Namespace: string; MetricName: string; Dimensions: { Name: string }[] } } }[] };
    const byId = Object.fromEntries(alarm.Metrics.map((metric) => [metric.Id, metric]));
    expect(alarm.Metrics.find((metric) => metric.ReturnData !== false)!.Expression).toBe(`IF(requests >= ${thresholds.serverErrorMinRequests}, 100 * errors / requests, 0)`);
    expect([byId.requests!.Expression, byId.errors!.Expression]).toEqual(['FILL(stageRequests, 0) + FILL(webhookRequests, 0)', 'FILL(stageErrors, 0) + FILL(webhookErrors, 0)']);
    expect([byId.stageRequests!.MetricStat!.Metric.MetricName, byId.stageErrors!.MetricStat!.Metric.MetricName]).toEqual(['Count', '5XXError']);
    for (const [id, name] of [['webhookRequests', count], ['webhookErrors', errors]] as const) {
      expect(byId[id]!.MetricStat!.Metric).toMatchObject({ Namespace: namespace, MetricName: name, Dimensions: [expect.objectContaining({ Name: dimension })] });
    }
  });

  it('fire on errors of the deliver consumer', () => {
    const deliver = logicalIdOf('AWS::Lambda::Function', /Delivers queued/);
    expect(alarmNamed('deliver-errors')).toMatchObject({ Namespace: 'AWS/Lambda', MetricName: 'Errors', Dimensions: [{ Name: 'FunctionName', Value: { Ref: deliver } }], Threshold: 0 });
  });

  // The reconciler's failures reach no queue and no other alarm: a reconciler failing every run
  // left dispatches of dead attempts and releases where they were, and nobody was told.
  it('fire when the reconciler has failed in every 5-minute period for 15 minutes', () => {
    const reconciler = logicalIdOf('AWS::Lambda::Function', /Re-enqueues stuck queued dispatches/);
    expect(alarmNamed('reconciler-failing')).toMatchObject({
      Namespace: 'AWS/Lambda',
      MetricName: 'Errors',
      Dimensions: [{ Name: 'FunctionName', Value: { Ref: reconciler } }],
      Statistic: 'Sum',
      Period: 300,
      Threshold: 0,
      EvaluationPeriods: 3,
      DatapointsToAlarm: 3,
    });
  });

  // A disabled schedule throws nothing: reconciler-failing stayed quiet while no run happened.
  it('fire when the reconciler has not been invoked for 15 minutes, counting a period without data as one', () => {
    const reconciler = logicalIdOf('AWS::Lambda::Function', /Re-enqueues stuck queued dispatches/);
    expect(alarmNamed('reconciler-not-running')).toMatchObject({
      Namespace: 'AWS/Lambda',
      MetricName: 'Invocations',
      Dimensions: [{ Name: 'FunctionName', Value: { Ref: reconciler } }],
      Statistic: 'Sum',
      Period: 300,
      ComparisonOperator: 'LessThanThreshold',
      Threshold: 1,
      EvaluationPeriods: 3,
      DatapointsToAlarm: 3,
      TreatMissingData: 'breaching',
    });
  });

  it('fire when the table’s stream consumer is five minutes behind, twice running', () => {
    const publisher = logicalIdOf('AWS::Lambda::Function', /Writes the delivery events of dispatch changes/);
    expect(alarmNamed('stream-consumer-behind')).toMatchObject({
      Namespace: 'AWS/Lambda',
      MetricName: 'IteratorAge',
      Statistic: 'Maximum',
      Dimensions: [{ Name: 'FunctionName', Value: { Ref: publisher } }],
      Threshold: 300_000,
      EvaluationPeriods: 2,
      DatapointsToAlarm: 2,
    });
  });

  it.each([
    ['whatsapp-token-refused', 'DeliveriesHeld', 'a delivery held because WhatsApp refused the access token'],
    ['whatsapp-account-restricted', 'WhatsAppAccountRestricted', 'a business account WhatsApp restricts, disables or finds in violation'],
  ])('%s: fire on the first %s (%s)', (name, metricName) => {
    expect(alarmNamed(name)).toMatchObject({
      Namespace: 'MessagingApi-dev',
      MetricName: metricName,
      Dimensions: [{ Name: 'service', Value: 'messaging-api' }],
      Statistic: 'Sum',
      Threshold: 0,
      EvaluationPeriods: 1,
    });
  });

  it('whatsapp-sender-refused: fire on the first send failed with a code by which WhatsApp refuses the sender, and on no other code', () => {
    const refused = alarmNamed('whatsapp-sender-refused');
    expect(senderRefusalCodes).toEqual(['131042', '131031', '368', '131045', '133010', '131037']);
    const ids = senderRefusalCodes.map((code) => `refused${code}`);
    expect(refused.Metrics!.filter((metric) => metric.Expression)).toEqual([expect.objectContaining({ Expression: ids.map((id) => `FILL(${id}, 0)`).join(' + '), ReturnData: true })]);
    expect(refused.Metrics!.filter((metric) => !metric.Expression)).toEqual(
      senderRefusalCodes.map((code) =>
        expect.objectContaining({
          Id: `refused${code}`,
          MetricStat: {
            Metric: { Namespace: 'MessagingApi-dev', MetricName: metricNames.failed, Dimensions: [{ Name: 'FailureCode', Value: code }, { Name: 'service', Value: 'messaging-api' }] },
            Period: 300,
            Stat: 'Sum',
          },
          ReturnData: false,
        }),
      ),
    );
    expect(refused).toMatchObject({ Threshold: 0, EvaluationPeriods: 1, DatapointsToAlarm: 1 });
  });

  it('fire on Lambda throttles in the account and on table throttles', () => {
    expect(alarmNamed('lambda-throttles')).toMatchObject({ Namespace: 'AWS/Lambda', MetricName: 'Throttles', Statistic: 'Sum' });
    expect(alarmNamed('lambda-throttles')).not.toHaveProperty('Dimensions');
  });

  // The TableName dimension alone counts the table's throttles "but not for any global secondary
  // indexes" (AWS's DynamoDB metrics reference): an index that throttled paged nobody.
  it('counts throttle events on the table and on every index, with or without provisioned capacity', () => {
    const { template: provisioned } = synthStack({ tableCapacity: '{"readUnits":{"min":5,"max":200},"writeUnits":{"min":20,"max":1000}}' });
    for (const synthesized of [template, provisioned]) {
      const alarm = Object.values(synthesized.findResources('AWS::CloudWatch::Alarm')).find((candidate) => candidate.Properties.AlarmName === 'MessagingApi-dev-table-throttles')!.Properties as {
        Metrics: { Expression?: string; MetricStat?: { Metric: { MetricName: string; Dimensions: { Name: string; Value: unknown }[] } } }[];
      };
      const watched = alarm.Metrics.flatMap((metric) => (metric.MetricStat ? [metric.MetricStat.Metric] : [])).map(
        (metric) => `${metric.MetricName}:${(metric.Dimensions.find((dimension) => dimension.Name === 'GlobalSecondaryIndexName')?.Value as string | undefined) ?? '(table)'}`,
      );
      const expected = ['(table)', ...Object.keys(tableDefinition.indexes)].flatMap((on) => [`ReadThrottleEvents:${on}`, `WriteThrottleEvents:${on}`]);
      expect(watched.sort()).toEqual(expected.sort());
      expect(alarm.Metrics.filter((metric) => metric.Expression)).toHaveLength(1);
    }
  });

  // With the callbacks on a function URL, their function's 50 reserved executions answer 429 beyond
  // that by design (WhatsApp retries), and cannot starve any other function: they paged all the same.
  it('leaves the reserved callbacks function’s own throttles out of lambda-throttles when WhatsApp calls a function URL', () => {
    const { template: urlStack } = synthStack({ webhookFrontDoor: 'functionUrl' });
    const [callbacks] = Object.entries(urlStack.findResources('AWS::Lambda::Function')).find(([, fn]) => fn.Properties.ReservedConcurrentExecutions === 50)!;
    const alarm = Object.values(urlStack.findResources('AWS::CloudWatch::Alarm')).find((candidate) => candidate.Properties.AlarmName === 'MessagingApi-dev-lambda-throttles')!.Properties as {
      Metrics: { Id: string; Expression?: string; MetricStat?: { Metric: { MetricName: string; Dimensions?: { Name: string; Value: unknown }[] } } }[];
    };
    expect(alarm.Metrics.find((metric) => metric.Expression)).toMatchObject({ Expression: 'FILL(all, 0) - FILL(reserved, 0)' });
    expect(alarm.Metrics.find((metric) => metric.Id === 'all')!.MetricStat!.Metric).toEqual({ Namespace: 'AWS/Lambda', MetricName: 'Throttles' });
    expect(alarm.Metrics.find((metric) => metric.Id === 'reserved')!.MetricStat!.Metric).toMatchObject({ MetricName: 'Throttles', Dimensions: [{ Name: 'FunctionName', Value: { Ref: callbacks } }] });
  });
});

describe('webhook alarm', () => {
  // Statuses of messages another app or WhatsApp Manager sent on a shared number name wamids we never sent: about
  // three items a message, normal traffic there, which paged on-call at seven such messages in five minutes.
  it('fires when skipped webhook items pass the threshold in two five-minute periods out of three, those of messages we never sent left out', () => {
    const skippedOrRefused = alarmNamed('webhook-items-skipped');
    expect(skippedOrRefused.Metrics!.find((metric: { Expression?: string }) => metric.Expression)).toMatchObject({ Expression: 'FILL(skipped, 0) - FILL(notOurs, 0) - FILL(changed, 0) + FILL(refused, 0)', ReturnData: true });
    // Left out by reason: statuses of messages we never sent; a customer deleting or editing a message
    // on a number shared with the WhatsApp Business app (everyday traffic there).
    for (const [id, reason] of [['notOurs', 'unknown_message_id'], ['changed', 'customer_message_changed']]) {
      expect(skippedOrRefused.Metrics!).toContainEqual(
        expect.objectContaining({
          Id: id,
          MetricStat: {
            Metric: { Namespace: 'MessagingApi-dev', MetricName: metricNames.webhookItemsSkipped, Dimensions: [{ Name: 'SkipReason', Value: reason }, { Name: 'service', Value: 'messaging-api' }] },
            Period: 300,
            Stat: 'Sum',
          },
          ReturnData: false,
        }),
      );
    }
    for (const [id, name] of [['skipped', metricNames.webhookItemsSkipped], ['refused', metricNames.webhookRequestsRefused]]) {
      expect(skippedOrRefused.Metrics!).toContainEqual(
        expect.objectContaining({ Id: id, MetricStat: { Metric: { Namespace: 'MessagingApi-dev', MetricName: name, Dimensions: [{ Name: 'service', Value: 'messaging-api' }] }, Period: 300, Stat: 'Sum' }, ReturnData: false }),
      );
    }
    expect(skippedOrRefused).toMatchObject({
      Threshold: thresholds.webhookItemsSkipped,
      EvaluationPeriods: 3,
      DatapointsToAlarm: 2,
    });
  });
});

describe('alarm topic', () => {
  it('is encrypted with a rotated key CloudWatch may use, and refuses plain HTTP', () => {
    const key = logicalIdOf('AWS::KMS::Key', /alarm notifications/);
    template.hasResourceProperties('AWS::KMS::Key', { EnableKeyRotation: true });
    template.hasResourceProperties('AWS::SNS::Topic', { KmsMasterKeyId: { 'Fn::GetAtt': [key, 'Arn'] } });
    expect(JSON.stringify(template.findResources('AWS::KMS::Key')[key]!.Properties.KeyPolicy)).toContain('cloudwatch.amazonaws.com');
    template.hasResourceProperties('AWS::SNS::TopicPolicy', {
      PolicyDocument: { Statement: Match.arrayWith([Match.objectLike({ Effect: 'Deny', Condition: { Bool: { 'aws:SecureTransport': 'false' } } })]) },
    });
  });

  // The topic's policy replaces SNS's default one, whose account-wide Allow is what lets the
  // account's alarms publish; without an Allow for CloudWatch every alarm action fails ("… alarm:…
  // is not authorized to perform: SNS:Publish", AWS knowledge center
  // cloudwatch-receive-sns-for-alarm-trigger) and nobody is paged.
  it.each([
    ['the stack’s own key', {}],
    ['kmsKeyArn', { account: '123456789012', region: 'ap-southeast-3', kmsKeyArn: 'arn:aws:kms:ap-southeast-3:123456789012:key/0a1b2c3d-0000-4000-8000-000000000003' }],
  ])('lets this account’s CloudWatch alarms, and only them, publish to it (%s)', (_case, context) => {
    const synthesized = Object.keys(context).length ? synthStack(context).template : template;
    const topic = Object.keys(synthesized.findResources('AWS::SNS::Topic'))[0]!;
    synthesized.hasResourceProperties('AWS::SNS::TopicPolicy', {
      Topics: [{ Ref: topic }],
      PolicyDocument: {
        Statement: Match.arrayWith([
          Match.objectLike({
            Effect: 'Allow',
            Principal: { Service: 'cloudwatch.amazonaws.com' },
            Action: 'sns:Publish',
            Resource: { Ref: topic },
            Condition: { StringEquals: { 'aws:SourceAccount': Match.anyValue() }, ArnLike: { 'aws:SourceArn': Match.anyValue() } },
          }),
        ]),
      },
    });
    // Each of this stack's alarms by name: a prefix (`MessagingApi-dev-*`) would take a stage named after it (`dev-eu`) too.
    const policy = Object.values(synthesized.findResources('AWS::SNS::TopicPolicy'))[0]!;
    const allow = (policy.Properties.PolicyDocument.Statement as { Effect: string; Condition?: { ArnLike?: { 'aws:SourceArn': unknown[] } } }[]).find((statement) => statement.Effect === 'Allow')!;
    const sources = JSON.stringify(allow.Condition!.ArnLike!['aws:SourceArn']);
    const alarmNames = Object.values(synthesized.findResources('AWS::CloudWatch::Alarm')).map((alarm) => alarm.Properties.AlarmName as string);
    expect(allow.Condition!.ArnLike!['aws:SourceArn']).toHaveLength(alarmNames.length);
    for (const name of alarmNames) expect(sources).toContain(`:alarm:${name}`);
    expect(sources).not.toContain('*');
  });

  it('has no subscriber unless an alarm email is given, then that one', () => {
    template.resourceCountIs('AWS::SNS::Subscription', 0);
    const { template: withEmail } = synthStack({ alarmEmail: 'oncall@example.com' });
    withEmail.hasResourceProperties('AWS::SNS::Subscription', { Protocol: 'email', Endpoint: 'oncall@example.com', TopicArn: Match.anyValue() });
    expect(() => synthStack({ alarmEmail: 'not-an-address' })).toThrow(/Invalid CDK context: alarmEmail:/);
  });
});

describe('dashboard', () => {
  it('shows the alarms, the business metrics in the stack’s namespace, and the queue, API and Lambda metrics', () => {
    template.resourceCountIs('AWS::CloudWatch::Dashboard', 1);
    const body = JSON.stringify(Object.values(template.findResources('AWS::CloudWatch::Dashboard'))[0]!.Properties.DashboardBody);
    for (const name of Object.values(metricNames)) expect(body).toContain(name);
    expect(body).toContain('MessagingApi-dev');
    expect(body).toContain('FailureCode');
    for (const metric of ['ApproximateAgeOfOldestMessage', '5XXError', 'Latency', 'Throttles', 'Duration']) expect(body).toContain(metric);
    // The dispatch queue is a fair queue by its messages' groups: how many workspaces it holds back, and what the others wait.
    for (const metric of ['ApproximateNumberOfNoisyGroups', 'ApproximateAgeOfOldestMessageInQuietGroups']) expect(body).toContain(metric);
    expect(body).toContain('alarm');
  });

  /** The dashboard's widgets as CloudWatch reads them: the body with each token given its logical id. */
  const widgets = () => {
    const body = Object.values(template.findResources('AWS::CloudWatch::Dashboard'))[0]!.Properties.DashboardBody as { 'Fn::Join': [string, (string | { Ref?: string })[]] };
    const text = body['Fn::Join'][1].map((part) => (typeof part === 'string' ? part : part.Ref ? `<${part.Ref}>` : '<token>')).join('');
    return (JSON.parse(text) as { widgets: { properties: { title?: string; metrics?: unknown[][] } }[] }).widgets.map((widget) => widget.properties);
  };

  // A search on the stack's name matched it anywhere in a function's name: `MessagingApi-dev`'s graph
  // also drew the functions of a `MessagingApi-dev-alice` deployed in the same account.
  it('graphs the errors of exactly this stack’s functions, one line each', () => {
    const errors = widgets().find((widget) => widget.title === 'Errors, every function')!;
    const functionsGraphed = errors.metrics!.map((metric) => {
      expect(metric.slice(0, 3)).toEqual(['AWS/Lambda', 'Errors', 'FunctionName']);
      return metric[3];
    });
    expect(functionsGraphed.sort()).toEqual(Object.keys(template.findResources('AWS::Lambda::Function')).map((id) => `<${id}>`).sort());
    expect(JSON.stringify(widgets())).not.toContain('AWS/Lambda,FunctionName');
  });

  it('keeps every graph within CloudWatch’s 100 metrics and expressions', () => {
    for (const widget of widgets()) expect([widget.title, (widget.metrics ?? []).length <= 100]).toEqual([widget.title, true]);
  });

  it('and the alarm topic are stack outputs', () => {
    template.hasOutput('DashboardUrl', { Value: Match.objectLike({ 'Fn::Join': Match.anyValue() }) });
    template.hasOutput('AlarmTopicArn', { Value: { Ref: topic() } });
  });
});
