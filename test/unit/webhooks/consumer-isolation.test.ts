import { createServer, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { SendMessageBatchCommand, SQSClient } from '@aws-sdk/client-sqs';
import { DynamoDBDocumentClient, GetCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { mockClient } from 'aws-sdk-client-mock';

/**
 * The consumer as the local runtime runs it, receivers on this machine allowed: its configuration
 * is read when it is imported, so it is imported after the environment is set.
 */
process.env.WEBHOOK_ALLOW_LOCAL_URLS = 'true';
const ddb = mockClient(DynamoDBDocumentClient);
const sqs = mockClient(SQSClient);
const NOW = new Date('2026-11-20T08:00:00.000Z');

/** The consumer and what its tests build events with, imported after the environment above. */
async function consumerModules() {
  return {
    ...(await import('../../../lambdas/shared/table')),
    ...(await import('../../support/webhooks')),
    ...(await import('../../../lambdas/domain/webhooks/webhook-event')),
    ...(await import('../../../lambdas/handlers/deliver-webhook-event')),
    ...(await import('../../../lib/testing')),
  };
}

describe('the webhook-events consumer', () => {
  it('posts a batch’s events at once: a receiver that hangs does not hold up another endpoint’s event; the failed attempt is logged for the runbook, the delivered one only counted', async () => {
    const { keys, storedWebhookEndpoint, testEvent, deliverEventBatch, lambdaContext, sqsEvent } = await consumerModules();

    const held: ServerResponse[] = [];
    let fastGotIt!: () => void;
    const fastReceived = new Promise<void>((resolve) => (fastGotIt = resolve));
    const server = createServer((request, response) => {
      request.resume();
      request.on('end', () => {
        if (request.url === '/slow') held.push(response);
        else {
          response.writeHead(200).end();
          fastGotIt();
        }
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const { port } = server.address() as AddressInfo;
    const endpoint = (id: string, path: string) => storedWebhookEndpoint({ workspaceId: 'ws-a', id, url: `http://127.0.0.1:${port}${path}`, at: NOW });
    const slow = `whe_${'5'.repeat(32)}`;
    const fast = `whe_${'6'.repeat(32)}`;
    // No delivery record yet: every attempt comes after it.
    ddb.on(GetCommand).resolves({});
    ddb.on(GetCommand, { Key: keys.webhookEndpoint('ws-a', slow) }).resolves({ Item: endpoint(slow, '/slow') });
    ddb.on(GetCommand, { Key: keys.webhookEndpoint('ws-a', fast) }).resolves({ Item: endpoint(fast, '/fast') });
    ddb.on(UpdateCommand).resolves({ Attributes: { failingSince: NOW.toISOString() } });
    sqs.on(SendMessageBatchCommand).resolves({ Successful: [], Failed: [] });
    const event = testEvent(slow, NOW);
    const message = (endpointId: string) => ({ workspaceId: 'ws-a', endpointId, eventId: event.id, type: event.type, payload: JSON.stringify(event), attempt: 1 });

    const lines: string[] = [];
    const write = process.stdout.write.bind(process.stdout);
    const capture = jest.spyOn(process.stdout, 'write').mockImplementation((chunk: string | Uint8Array, ...rest: unknown[]) => {
      lines.push(String(chunk));
      return (write as (...args: unknown[]) => boolean)(chunk, ...rest);
    });
    try {
      // The slow endpoint's message comes first; had it been posted first and waited for, the fast
      // one would arrive only after WEBHOOK_TIMEOUT_MS (5 s), past this test's own timeout.
      const batch = deliverEventBatch(sqsEvent([{ body: message(slow) }, { body: message(fast) }]), lambdaContext('deliver-webhook-event'));
      await fastReceived;
      for (const response of held) response.destroy();

      expect(await batch).toEqual({ batchItemFailures: [] });
      // The slow endpoint's attempt failed (its connection cut) and is retried on its own schedule.
      expect(sqs.commandCalls(SendMessageBatchCommand).map((call) => JSON.parse(call.args[0].input.Entries![0]!.MessageBody!) as { endpointId: string; attempt: number })).toEqual([
        expect.objectContaining({ endpointId: slow, attempt: 2 }),
      ]);
      // docs/operations.md finds failing endpoints by these lines; a delivered event is a metric and
      // a delivery record, not a log line (five a message at one endpoint: docs/cost.md).
      const attempts = lines.filter((line) => line.includes('"Webhook delivery attempt"')).map((line) => JSON.parse(line) as Record<string, unknown>);
      expect(attempts.map(({ level, endpointId, outcome }) => ({ level, endpointId, outcome }))).toEqual([{ level: 'INFO', endpointId: slow, outcome: 'retrying' }]);
    } finally {
      capture.mockRestore();
      for (const response of held) response.destroy();
      await new Promise((resolve) => server.close(resolve));
    }
  });

  it('reads each endpoint once a batch, however many of its records name it, and again in the next batch', async () => {
    const { keys, storedWebhookEndpoint, testEvent, deliverEventBatch, lambdaContext, sqsEvent } = await consumerModules();
    ddb.reset();
    sqs.reset();

    const received: string[] = [];
    const server = createServer((request, response) => {
      request.resume();
      request.on('end', () => {
        received.push(`${request.url} ${String(request.headers['webhook-id'])}`);
        response.writeHead(204).end();
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const { port } = server.address() as AddressInfo;
    const [first, second] = [`whe_${'7'.repeat(32)}`, `whe_${'8'.repeat(32)}`];
    const endpoint = (id: string) => storedWebhookEndpoint({ workspaceId: 'ws-a', id, url: `http://127.0.0.1:${port}/${id}`, at: NOW });
    ddb.on(GetCommand).resolves({});
    for (const id of [first, second]) ddb.on(GetCommand, { Key: keys.webhookEndpoint('ws-a', id) }).resolves({ Item: endpoint(id) });
    ddb.on(UpdateCommand).resolves({});
    const events = [0, 1, 2].map((i) => testEvent(first, new Date(NOW.getTime() + i * 1_000)));
    const message = (endpointId: string, event: (typeof events)[number]) => ({ workspaceId: 'ws-a', endpointId, eventId: event.id, type: event.type, payload: JSON.stringify(event), attempt: 1 });
    const batch = sqsEvent([...events.map((event) => ({ body: message(first, event) })), { body: message(second, events[0]!) }]);
    const endpointReads = () => ddb.commandCalls(GetCommand).filter((call) => !String(call.args[0].input.Key?.sk).startsWith('DLV#')).map((call) => ({ key: call.args[0].input.Key, consistent: call.args[0].input.ConsistentRead }));
    try {
      expect(await deliverEventBatch(batch, lambdaContext('deliver-webhook-event'))).toEqual({ batchItemFailures: [] });
      // Four events posted, each to its endpoint, each recorded as delivered.
      expect(received.sort()).toEqual([...events.map((event) => `/${first} ${event.id}`), `/${second} ${events[0]!.id}`].sort());
      expect(ddb.commandCalls(UpdateCommand).filter((call) => String(call.args[0].input.Key?.sk).startsWith('DLV#'))).toHaveLength(4);
      expect(endpointReads()).toEqual([
        { key: keys.webhookEndpoint('ws-a', first), consistent: true },
        { key: keys.webhookEndpoint('ws-a', second), consistent: true },
      ]);

      // The next batch reads afresh: a change to the endpoint since is seen.
      await deliverEventBatch(sqsEvent([{ body: message(first, events[1]!) }]), lambdaContext('deliver-webhook-event'));
      expect(endpointReads()).toHaveLength(3);
    } finally {
      await new Promise((resolve) => server.close(resolve));
    }
  });
});
