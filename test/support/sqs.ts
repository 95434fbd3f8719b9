import { randomUUID } from 'node:crypto';
import { ReceiveMessageCommand, SQSClient } from '@aws-sdk/client-sqs';
import { createDispatchQueues } from '../../lib/local/sqs-emulator';
import type { QueueTarget } from '../../lambdas/shared/queue';
import { createTestTable } from './dynamodb';

/** A dispatch queue and DLQ of this test file's own on the run's SQS emulator. */
export async function createTestQueues(): Promise<QueueTarget & { dlqUrl: string; receiveAll(): Promise<unknown[]>; close(): void }> {
  const endpoint = process.env.SQS_ENDPOINT;
  if (!endpoint) throw new Error('SQS_ENDPOINT is not set: run this file in the integration or e2e project');
  const sqs = new SQSClient({ endpoint, region: process.env.AWS_REGION! });
  const { queueUrl, dlqUrl } = await createDispatchQueues(sqs, `test-${randomUUID().slice(0, 8)}`);
  return {
    sqs,
    queueUrl,
    dlqUrl,
    /** Every message now on the queue, bodies parsed (received with no visibility timeout change). */
    async receiveAll() {
      const bodies: unknown[] = [];
      for (;;) {
        const { Messages } = await sqs.send(new ReceiveMessageCommand({ QueueUrl: queueUrl, MaxNumberOfMessages: 10, WaitTimeSeconds: 0, VisibilityTimeout: 60 }));
        if (!Messages?.length) return bodies;
        bodies.push(...Messages.map((message) => JSON.parse(message.Body!) as unknown));
      }
    },
    close: () => sqs.destroy(),
  };
}

/**
 * This test file's own table and queues, created before its tests and removed after them.
 * Read `.table` and `.queues` inside tests (they exist once beforeAll has run).
 */
export function useTableAndQueues() {
  const env = {} as { table: Awaited<ReturnType<typeof createTestTable>>; queues: Awaited<ReturnType<typeof createTestQueues>> };
  beforeAll(async () => {
    env.table = await createTestTable();
    env.queues = await createTestQueues();
  });
  afterAll(async () => {
    await env.table.drop();
    env.queues.close();
  });
  return env;
}
