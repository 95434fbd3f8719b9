/**
 * docs/security.md: an API key is never logged, nor is a customer's number or text, even when an
 * operator debugging sets POWERTOOLS_LOGGER_LOG_EVENT=true (decision 38). The HTTP stack turns the
 * event log off; these functions are built outside it and receive the same secrets in their events:
 * the usage-plan authorizer the X-API-Key header, the webhook publisher and the report projection
 * dispatch images from the table's stream (the recipient's number, the message's values), the
 * webhook consumer the events it posts (a customer's reply). Set before the handlers load, as a
 * function's environment is.
 */
process.env.POWERTOOLS_LOG_LEVEL = 'DEBUG';
process.env.POWERTOOLS_LOGGER_LOG_EVENT = 'true';

import { marshall } from '@aws-sdk/util-dynamodb';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { SQSClient } from '@aws-sdk/client-sqs';
import { mockClient } from 'aws-sdk-client-mock';
import type { DynamoDBStreamEvent } from 'aws-lambda';
import { authorizerEvent, lambdaContext, resetContainerCaches, sqsEvent } from '../../../lib/testing';

mockClient(DynamoDBDocumentClient).resolves({});
mockClient(SQSClient).resolves({});
beforeEach(() => resetContainerCaches());

const KEY = 'msk_live_SecretPartOfTheKey00000000000AbCd';
const PHONE = '+6281299887766';
const TEXT = 'Alamat saya Jalan Mawar 12';

/** What the functions write to stdout and stderr while `run` runs. */
async function logsOf(run: () => Promise<unknown>): Promise<string> {
  const captured: string[] = [];
  const spies = [process.stdout, process.stderr].map((stream) =>
    jest.spyOn(stream, 'write').mockImplementation((chunk: unknown) => {
      captured.push(String(chunk));
      return true;
    }),
  );
  try {
    // The capture sees the functions' logger at DEBUG: a quiet log below is the switch turned off, not a deaf test.
    (await import('../../../lambdas/shared/logger')).logger.debug('probe');
    await run().catch(() => undefined);
  } finally {
    spies.forEach((spy) => spy.mockRestore());
  }
  const logs = captured.join('\n');
  expect(logs).toContain('"message":"probe"');
  return logs;
}

/** A table stream record of an item holding the customer's number and text, as Lambda hands it over. */
const streamEvent = (): DynamoDBStreamEvent => ({
  Records: [
    {
      eventID: 'e-1',
      eventName: 'INSERT',
      eventVersion: '1.1',
      eventSource: 'aws:dynamodb',
      awsRegion: 'ap-southeast-3',
      eventSourceARN: 'arn:aws:dynamodb:ap-southeast-3:123456789012:table/messaging-table/stream/2026-11-01T00:00:00.000',
      dynamodb: {
        Keys: marshall({ pk: 'WS#ws-a#D#x', sk: 'D' }) as never,
        NewImage: marshall({ pk: 'WS#ws-a#D#x', sk: 'D', recipientPhone: PHONE, variables: { address: TEXT } }) as never,
        SequenceNumber: '1',
        SizeBytes: 200,
        StreamViewType: 'NEW_IMAGE',
      },
    },
  ],
});

it('the usage-plan authorizer never logs the X-API-Key header', async () => {
  const { handler } = await import('../../../lambdas/handlers/usage-plan-authorizer');
  const logs = await logsOf(() => handler(authorizerEvent('listTemplates', { headers: { 'X-API-Key': KEY } }), lambdaContext('authorizer')));
  expect(logs).not.toContain('SecretPartOfTheKey');
});

it.each([
  ['publish-webhook-events', async () => (await import('../../../lambdas/handlers/publish-webhook-events')).handler(streamEvent(), lambdaContext('publish-webhook-events'))],
  ['project-reports', async () => (await import('../../../lambdas/handlers/project-reports')).handler(streamEvent() as never, lambdaContext('project-reports'))],
  ['deliver-webhook-event', async () => (await import('../../../lambdas/handlers/deliver-webhook-event')).handler(sqsEvent([{ body: { data: { from: PHONE, text: TEXT } } }]), lambdaContext('deliver-webhook-event'))],
])('%s never logs its event, which carries a customer’s number and text', async (_name, run) => {
  const logs = await logsOf(run);
  expect(logs).not.toContain(PHONE);
  expect(logs).not.toContain('Jalan Mawar');
});
