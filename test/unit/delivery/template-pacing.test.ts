import { DynamoDBDocumentClient, GetCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { mockClient } from 'aws-sdk-client-mock';
import 'aws-sdk-client-mock-jest';
import { mayBeHeld, noteHeldSend, PACING_GRAIN_MS, PACING_HOLD_MS } from '../../../lambdas/domain/delivery/template-pacing';
import { keys } from '../../../lambdas/shared/table';
import { resetContainerCaches } from '../../../lib/testing';

const ddb = mockClient(DynamoDBDocumentClient);
beforeEach(() => {
  ddb.reset();
  resetContainerCaches();
});

const TEMPLATE = '7b0c5c3e-0000-4000-8000-000000000001';
const at = (seconds: number) => new Date(Date.UTC(2026, 10, 27, 8, 0, 0) + seconds * 1000).toISOString();
const written = () => ddb.commandCalls(UpdateCommand).map((call) => [call.args[0].input.Key, call.args[0].input.ExpressionAttributeValues?.[':at']]);

describe('template pacing marks', () => {
  it('moves a number and template’s mark forward only, one write per container for every 10 s, expiring a day after', async () => {
    ddb.on(UpdateCommand).resolves({});
    for (const seconds of [0, 1, 9, 10, 25]) await noteHeldSend('pn-1', TEMPLATE, at(seconds));
    await noteHeldSend('pn-1', 'another-template', at(26));
    expect(PACING_GRAIN_MS).toBe(10_000);
    expect(written()).toEqual([
      [keys.templatePacing('pn-1', TEMPLATE), at(0)],
      [keys.templatePacing('pn-1', TEMPLATE), at(10)],
      [keys.templatePacing('pn-1', TEMPLATE), at(25)],
      [keys.templatePacing('pn-1', 'another-template'), at(26)],
    ]);
    expect(ddb).toHaveReceivedCommandWith(UpdateCommand, {
      Key: { pk: 'WANUM#pn-1', sk: `PACED#${TEMPLATE}` },
      UpdateExpression: 'SET entity = :entity, #at = :at, #ttl = :ttl',
      ConditionExpression: 'attribute_not_exists(#at) OR #at < :at',
      ExpressionAttributeNames: { '#at': 'heldThrough', '#ttl': 'ttl' },
      ExpressionAttributeValues: { ':entity': 'templatePacing', ':at': at(0), ':ttl': Date.parse(at(0)) / 1000 + 86_400 },
    });
  });

  it('takes another container having gone further in its stride, and tries again after a failed write', async () => {
    ddb.on(UpdateCommand).rejectsOnce(Object.assign(new Error('further already'), { name: 'ConditionalCheckFailedException' })).rejectsOnce(Object.assign(new Error('table away'), { name: 'ServiceUnavailable' })).resolves({});
    await noteHeldSend('pn-2', TEMPLATE, at(0));
    await expect(noteHeldSend('pn-2', TEMPLATE, at(20))).rejects.toThrow('table away');
    await noteHeldSend('pn-2', TEMPLATE, at(21));
    expect(written().map(([, through]) => through)).toEqual([at(0), at(20), at(21)]);
  });

  it('reads an attempt as possibly held when a send of its template was held within the hour before it, or after it', async () => {
    ddb.on(GetCommand, { Key: keys.templatePacing('pn-1', TEMPLATE) }).resolves({ Item: { ...keys.templatePacing('pn-1', TEMPLATE), entity: 'templatePacing', heldThrough: at(0) } });
    ddb.on(GetCommand, { Key: keys.templatePacing('pn-1', 'never-held') }).resolves({});
    const hour = PACING_HOLD_MS / 1000;
    expect(await mayBeHeld('pn-1', TEMPLATE, at(-600))).toBe(true);
    expect(await mayBeHeld('pn-1', TEMPLATE, at(hour))).toBe(true);
    // The stored moment may be a grain behind the latest held send.
    expect(await mayBeHeld('pn-1', TEMPLATE, at(hour + 10))).toBe(true);
    expect(await mayBeHeld('pn-1', TEMPLATE, at(hour + 11))).toBe(false);
    expect(await mayBeHeld('pn-1', 'never-held', at(0))).toBe(false);
  });
});
