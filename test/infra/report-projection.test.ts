import { DISPATCH_ENTITY, REPORTS_CHANGE_MADE } from '../../lambdas/domain/messages/dispatch';
import { reportProjectionSettings } from '../../lambdas/shared/stream-consumer-settings';
import { synthStack } from '../support/synth';

const { stack, template } = synthStack();
const idOf = (construct: { node: { defaultChild?: unknown } }) => stack.getLogicalId(construct.node.defaultChild as never);
const projection = idOf(stack.reports.projectFunction);
const mapping = () => {
  const mappings = Object.values(template.findResources('AWS::Lambda::EventSourceMapping')).filter((candidate) => JSON.stringify(candidate.Properties.FunctionName).includes(projection));
  expect(mappings).toHaveLength(1);
  return mappings[0]!.Properties as Record<string, unknown>;
};

describe('the report projection (decision 113)', () => {
  it('reads the table’s stream for the dispatch changes that name a reports change only, over a tumbling window', () => {
    expect(mapping()).toMatchObject({
      EventSourceArn: { 'Fn::GetAtt': [expect.any(String), 'StreamArn'] },
      StartingPosition: 'TRIM_HORIZON',
      BatchSize: reportProjectionSettings.batchSize,
      MaximumBatchingWindowInSeconds: reportProjectionSettings.maxBatchingWindowSeconds,
      TumblingWindowInSeconds: reportProjectionSettings.tumblingWindowSeconds,
    });
    const patterns = (mapping().FilterCriteria as { Filters: { Pattern: string }[] }).Filters.map((filter) => JSON.parse(filter.Pattern) as unknown);
    expect(patterns).toEqual([{ eventName: ['MODIFY'], dynamodb: { NewImage: { entity: { S: [DISPATCH_ENTITY] }, [REPORTS_CHANGE_MADE]: { N: ['1', '-1'] } } } }]);
  });

  it('never gives a batch up: no retry limit, no record age, no failure destination, no partial batch answers (a batch given up would be counts lost)', () => {
    const properties = mapping();
    for (const setting of ['MaximumRetryAttempts', 'MaximumRecordAgeInSeconds', 'DestinationConfig', 'FunctionResponseTypes', 'BisectBatchOnFunctionError']) expect(properties).not.toHaveProperty(setting);
  });

  it('may write the table, and the functions that move dispatches are updated after it', () => {
    const actions = Object.values(template.findResources('AWS::IAM::Policy'))
      .filter((policy) => JSON.stringify(policy.Properties.Roles).includes(idOf(stack.reports.projectFunction.role!)))
      .flatMap((policy) => (policy.Properties.PolicyDocument as { Statement: { Action: string | string[] }[] }).Statement.flatMap((statement) => statement.Action));
    expect(actions).toEqual(expect.arrayContaining(['dynamodb:BatchWriteItem', 'dynamodb:UpdateItem', 'dynamodb:PutItem']));
    const functions = template.findResources('AWS::Lambda::Function');
    expect(functions[projection]!.Properties.Environment.Variables).toHaveProperty('TABLE_NAME');
    for (const mover of [stack.delivery.deliverFunction, stack.delivery.reconcileFunction, stack.api.functions.whatsappWebhook!].map(idOf)) {
      expect(functions[mover]!.DependsOn).toEqual(expect.arrayContaining([projection, idOf(stack.webhooks.publishFunction)]));
    }
  });

  it('alarms when it is minutes behind, twice running', () => {
    const alarm = Object.values(template.findResources('AWS::CloudWatch::Alarm')).find((candidate) => candidate.Properties.AlarmName === 'MessagingApi-dev-reports-behind');
    expect(alarm?.Properties).toMatchObject({
      Namespace: 'AWS/Lambda',
      MetricName: 'IteratorAge',
      Statistic: 'Maximum',
      Dimensions: [{ Name: 'FunctionName', Value: { Ref: projection } }],
      Threshold: 300_000,
      EvaluationPeriods: 2,
      DatapointsToAlarm: 2,
    });
  });
});
