import { Match } from 'aws-cdk-lib/assertions';
import { DISPATCH_ENTITY } from '../../lambdas/domain/messages/dispatch';
import { OUTBOX_ENTITY } from '../../lambdas/domain/webhooks/outbox-item';
import { routeEntries, routes } from '../../lambdas/routes';
import { webhookQueueSettings } from '../../lambdas/shared/webhook-queue-settings';
import { synthStack } from '../support/synth';

const { stack, template } = synthStack();
const idOf = (construct: { node: { defaultChild?: unknown } }) => stack.getLogicalId(construct.node.defaultChild as never);
const publisher = idOf(stack.webhooks.publishFunction);
const consumer = idOf(stack.webhooks.deliverFunction);
const eventsQueue = idOf(stack.webhooks.events.queue);
const eventsDlq = idOf(stack.webhooks.events.deadLetterQueue);
const streamFailures = idOf(stack.webhooks.streamFailures);
const mappingOf = (functionId: string) => {
  const mappings = Object.values(template.findResources('AWS::Lambda::EventSourceMapping')).filter((mapping) => JSON.stringify(mapping.Properties.FunctionName).includes(functionId));
  expect(mappings).toHaveLength(1);
  return mappings[0]!.Properties as Record<string, unknown>;
};
const environmentOf = (logicalId: string) => (template.findResources('AWS::Lambda::Function')[logicalId]!.Properties.Environment?.Variables ?? {}) as Record<string, unknown>;

describe('the webhook pipeline', () => {
  it('streams the table’s new images', () => {
    template.hasResourceProperties('AWS::DynamoDB::GlobalTable', { StreamSpecification: { StreamViewType: 'NEW_IMAGE' } });
  });

  it('invokes the publisher for outbox inserts and dispatch updates only, with partial batch failures, bisecting and a bounded retry into a queue of its own', () => {
    const mapping = mappingOf(publisher);
    expect(mapping).toMatchObject({
      StartingPosition: 'TRIM_HORIZON',
      FunctionResponseTypes: ['ReportBatchItemFailures'],
      BisectBatchOnFunctionError: true,
      MaximumRetryAttempts: 10,
      MaximumRecordAgeInSeconds: 86_400,
      // Not the consumer's DLQ: SQS moves back only what another queue dead-lettered, so a record of
      // Lambda's there would stop the operator's move of the events (docs/operations.md).
      DestinationConfig: { OnFailure: { Destination: { 'Fn::GetAtt': [streamFailures, 'Arn'] } } },
    });
    const patterns = (mapping.FilterCriteria as { Filters: { Pattern: string }[] }).Filters.map((filter) => JSON.parse(filter.Pattern) as unknown);
    expect(patterns).toEqual([
      { eventName: ['INSERT'], dynamodb: { NewImage: { entity: { S: [OUTBOX_ENTITY] } } } },
      { eventName: ['MODIFY'], dynamodb: { NewImage: { entity: { S: [DISPATCH_ENTITY] } } } },
    ]);
  });

  it('lets the publisher write the table (the delivery events, decision 112; a failed dispatch’s day send, decision 192), and updates the functions that move dispatches after it', () => {
    const statements = Object.values(template.findResources('AWS::IAM::Policy'))
      .filter((policy) => JSON.stringify(policy.Properties.Roles).includes(idOf(stack.webhooks.publishFunction.role!)))
      .flatMap((policy) => (policy.Properties.PolicyDocument as { Statement: { Action: string | string[] }[] }).Statement.flatMap((statement) => statement.Action));
    expect(statements).toEqual(expect.arrayContaining(['dynamodb:BatchWriteItem', 'dynamodb:DeleteItem']));
    const movers = [stack.delivery.deliverFunction, stack.api.functions.whatsappWebhook!].map(idOf);
    const functions = template.findResources('AWS::Lambda::Function');
    for (const mover of movers) expect(functions[mover]!.DependsOn).toContain(publisher);
  });

  it('feeds the consumer from the webhook-events queue, a limited number of invocations at once', () => {
    expect(mappingOf(consumer)).toMatchObject({
      EventSourceArn: { 'Fn::GetAtt': [eventsQueue, 'Arn'] },
      BatchSize: webhookQueueSettings.batchSize,
      FunctionResponseTypes: ['ReportBatchItemFailures'],
      ScalingConfig: { MaximumConcurrency: webhookQueueSettings.maxConcurrency },
    });
    template.hasResourceProperties('AWS::SQS::Queue', {
      VisibilityTimeout: webhookQueueSettings.visibilityTimeoutSeconds,
      RedrivePolicy: { deadLetterTargetArn: { 'Fn::GetAtt': [eventsDlq, 'Arn'] }, maxReceiveCount: webhookQueueSettings.maxReceiveCount },
    });
  });

  it('names the webhook-events queue to the publisher, the consumer and the resend and test routes, and to no other function', () => {
    const named = Object.keys(template.findResources('AWS::Lambda::Function')).filter((logicalId) => 'WEBHOOK_QUEUE_URL' in environmentOf(logicalId));
    const routesWithIt = routeEntries.filter(([, route]) => 'webhookQueue' in route.access).map(([id]) => id);
    expect(routesWithIt.sort()).toEqual(['resendWebhookEvent', 'resendWebhookEvents', 'testWebhookEndpoint']);
    expect(named).toHaveLength(routesWithIt.length + 2);
    expect(named).toEqual(expect.arrayContaining([publisher, consumer]));
    for (const logicalId of named) expect(environmentOf(logicalId).WEBHOOK_QUEUE_URL).toEqual({ Ref: eventsQueue });
    expect(routes.listWebhookDeliveries.access).toEqual({ table: 'read', secrets: 'cursor' });
  });

  it('keeps the batches the publisher gave up on for 14 days, encrypted, TLS only, retained with the stack’s data', () => {
    expect(template.findResources('AWS::SQS::Queue')[streamFailures]).toMatchObject({
      Properties: { MessageRetentionPeriod: 14 * 86_400, SqsManagedSseEnabled: true },
      DeletionPolicy: 'Retain',
    });
    template.hasResourceProperties('AWS::SQS::QueuePolicy', {
      Queues: [{ Ref: streamFailures }],
      PolicyDocument: { Statement: Match.arrayWith([Match.objectLike({ Effect: 'Deny', Condition: { Bool: { 'aws:SecureTransport': 'false' } } })]) },
    });
  });

  it('alarms on the first message in its DLQ and on endpoints given up on or disabled', () => {
    const alarms = Object.values(template.findResources('AWS::CloudWatch::Alarm')).map((alarm) => alarm.Properties);
    expect(alarms.find((alarm) => alarm.AlarmName === 'MessagingApi-dev-webhook-dlq-not-empty')).toMatchObject({
      MetricName: 'ApproximateNumberOfMessagesVisible',
      Dimensions: [{ Name: 'QueueName', Value: { 'Fn::GetAtt': [eventsDlq, 'QueueName'] } }],
      Threshold: 0,
      EvaluationPeriods: 1,
    });
    expect(alarms.find((alarm) => alarm.AlarmName === 'MessagingApi-dev-webhook-endpoints-failing')).toMatchObject({ MetricName: 'WebhookEventsAbandoned', Period: 3600, Threshold: 0 });
    expect(alarms.find((alarm) => alarm.AlarmName === 'MessagingApi-dev-webhook-endpoint-disabled')).toMatchObject({ MetricName: 'WebhookEndpointsDisabled', Period: 3600, Threshold: 0 });
    expect(alarms.find((alarm) => alarm.AlarmName === 'MessagingApi-dev-stream-batches-failed')).toMatchObject({
      MetricName: 'ApproximateNumberOfMessagesVisible',
      Dimensions: [{ Name: 'QueueName', Value: { 'Fn::GetAtt': [streamFailures, 'QueueName'] } }],
      Threshold: 0,
      EvaluationPeriods: 1,
    });
    template.hasOutput('WebhookDeadLetterQueueUrl', { Value: { Ref: eventsDlq } });
    template.hasOutput('StreamFailureQueueUrl', { Value: { Ref: streamFailures } });
    template.hasOutput('WebhookEventsQueueUrl', { Value: { Ref: eventsQueue } });
  });
});
