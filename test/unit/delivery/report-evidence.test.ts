import { DynamoDBDocumentClient, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { mockClient } from 'aws-sdk-client-mock';
import 'aws-sdk-client-mock-jest';
import { EVIDENCE_GRAIN_MS, noteReport } from '../../../lambdas/domain/delivery/report-evidence';
import { keys } from '../../../lambdas/shared/table';
import { resetContainerCaches } from '../../../lib/testing';

const ddb = mockClient(DynamoDBDocumentClient);
beforeEach(() => {
  ddb.reset();
  resetContainerCaches();
});

const at = (seconds: number) => new Date(Date.UTC(2026, 10, 23, 8, 0, seconds)).toISOString();
const written = () => ddb.commandCalls(UpdateCommand).map((call) => [call.args[0].input.Key, call.args[0].input.ExpressionAttributeValues?.[':at']]);

describe('report evidence for a sending number', () => {
  it('moves forward only, with one write per container for every 10 s the evidence advances', async () => {
    ddb.on(UpdateCommand).resolves({});
    for (const seconds of [0, 1, 9, 5, 10, 12, 25]) await noteReport('pn-1', at(seconds));
    expect(EVIDENCE_GRAIN_MS).toBe(10_000);
    expect(written()).toEqual([
      [keys.numberReports('pn-1'), at(0)],
      [keys.numberReports('pn-1'), at(10)],
      [keys.numberReports('pn-1'), at(25)],
    ]);
    expect(ddb).toHaveReceivedCommandWith(UpdateCommand, {
      UpdateExpression: 'SET entity = :entity, #at = :at',
      ConditionExpression: 'attribute_not_exists(#at) OR #at < :at',
      ExpressionAttributeNames: { '#at': 'reportedThrough' },
      ExpressionAttributeValues: { ':entity': 'numberReports', ':at': at(0) },
    });
  });

  it('keeps numbers apart, takes another container having gone further in its stride, and tries again after a failed write', async () => {
    ddb.on(UpdateCommand, { Key: keys.numberReports('pn-2') }).rejectsOnce(Object.assign(new Error('further already'), { name: 'ConditionalCheckFailedException' }));
    ddb.on(UpdateCommand, { Key: keys.numberReports('pn-3') }).rejectsOnce(Object.assign(new Error('table away'), { name: 'ServiceUnavailable' }));
    await noteReport('pn-2', at(0));
    await noteReport('pn-2', at(1));
    await expect(noteReport('pn-3', at(0))).rejects.toThrow('table away');
    await noteReport('pn-3', at(1));
    expect(written()).toEqual([
      [keys.numberReports('pn-2'), at(0)],
      [keys.numberReports('pn-3'), at(0)],
      [keys.numberReports('pn-3'), at(1)],
    ]);
  });
});
