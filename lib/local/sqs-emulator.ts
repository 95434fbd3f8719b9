import { CreateQueueCommand, GetQueueAttributesCommand, type SQSClient } from '@aws-sdk/client-sqs';
import { dispatchQueueSettings } from '../../lambdas/shared/dispatch-queue-settings';
import { webhookQueueSettings } from '../../lambdas/shared/webhook-queue-settings';

export interface SqsEmulator {
  endpoint: string;
  stop(): Promise<void>;
}

/**
 * fauxqs, an SQS emulator speaking the AWS JSON protocol, in this process, on 127.0.0.1 only.
 * Imported when started: it is ESM-only, and jest (which loads this module for its queue helpers)
 * reads our code as CommonJS.
 */
export async function startSqsEmulator(): Promise<SqsEmulator> {
  const { startLoopbackSqs } = await import('./fauxqs-loopback.mjs');
  return startLoopbackSqs();
}

export interface DispatchQueues {
  queueUrl: string;
  queueArn: string;
  dlqUrl: string;
}

/** A queue's redrive and retention settings, as the stack gives them (lambdas/shared/*-queue-settings.ts). */
interface QueueSettings {
  visibilityTimeoutSeconds: number;
  retentionDays: number;
  dlqRetentionDays: number;
  maxReceiveCount: number;
}

/** The dispatch queue and its DLQ, with the stack's redrive and visibility settings. */
export function createDispatchQueues(sqs: SQSClient, namePrefix: string): Promise<DispatchQueues> {
  return createQueueWithDlq(sqs, `${namePrefix}-dispatch`, dispatchQueueSettings);
}

/** The webhook-events queue and its DLQ, with the stack's settings. */
export function createWebhookQueues(sqs: SQSClient, namePrefix: string): Promise<DispatchQueues> {
  return createQueueWithDlq(sqs, `${namePrefix}-webhook-events`, webhookQueueSettings);
}

async function createQueueWithDlq(sqs: SQSClient, name: string, settings: QueueSettings): Promise<DispatchQueues> {
  const dlq = await sqs.send(
    new CreateQueueCommand({
      QueueName: `${name}-dlq`,
      Attributes: { MessageRetentionPeriod: String(settings.dlqRetentionDays * 86_400) },
    }),
  );
  const dlqUrl = dlq.QueueUrl!;
  const { Attributes } = await sqs.send(new GetQueueAttributesCommand({ QueueUrl: dlqUrl, AttributeNames: ['QueueArn'] }));
  const queue = await sqs.send(
    new CreateQueueCommand({
      QueueName: name,
      Attributes: {
        VisibilityTimeout: String(settings.visibilityTimeoutSeconds),
        MessageRetentionPeriod: String(settings.retentionDays * 86_400),
        RedrivePolicy: JSON.stringify({ deadLetterTargetArn: Attributes?.QueueArn, maxReceiveCount: settings.maxReceiveCount }),
      },
    }),
  );
  const arn = await sqs.send(new GetQueueAttributesCommand({ QueueUrl: queue.QueueUrl!, AttributeNames: ['QueueArn'] }));
  return { queueUrl: queue.QueueUrl!, queueArn: arn.Attributes!.QueueArn!, dlqUrl };
}
