import { DynamoDBDocumentClient, GetCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { mockClient } from 'aws-sdk-client-mock';
import type { Context } from 'aws-lambda';
import { handler as deliver } from '../../../lambdas/handlers/deliver';
import { dispatchMessage, itemsByKey, lambdaContext, resetContainerCaches, sqsEvent, workspaceItem } from '../../../lib/testing';
import { captureLogLines } from '../../support/log-lines';

/**
 * A developer's own test may hand a handler `{}` for its context, as the HTTP routes take it: the
 * deliver consumer answers it as it answers the kit's context (its verdict's write keeping its own
 * deadline), not by failing the record without a word.
 */
const ddb = mockClient(DynamoDBDocumentClient);

beforeEach(() => {
  ddb.reset();
  resetContainerCaches();
  // The dispatch is no longer queued: the claim is refused, and the message is done with.
  ddb.on(GetCommand).callsFake(itemsByKey([workspaceItem()]));
  ddb.on(UpdateCommand).rejects(Object.assign(new Error('The conditional request failed'), { name: 'ConditionalCheckFailedException', $metadata: { httpStatusCode: 400 } }));
});

async function outcome(context: Context) {
  const logs = captureLogLines();
  try {
    const answer = await deliver(sqsEvent([{ body: dispatchMessage('4f1c2a7e-8a3b-4c5d-9e6f-0a1b2c3d4e5f') }]), context);
    return { recordsFailed: answer.batchItemFailures.length, logLines: logs.lines.map((line) => `${String(line.level)} ${String(line.message)}`) };
  } finally {
    logs.restore();
  }
}

describe('the deliver consumer given a bare context', () => {
  it('answers {} as it answers the kit’s context', async () => {
    const expected = { recordsFailed: 0, logLines: ['WARN Queue named a dispatch that does not exist', 'INFO Delivery attempt'] };
    expect(await outcome(lambdaContext('deliver'))).toEqual(expected);
    expect(await outcome({} as Context)).toEqual(expected);
  });
});
