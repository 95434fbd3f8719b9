import { CreateQueueCommand, GetQueueAttributesCommand, type SQSClient } from '@aws-sdk/client-sqs';
import { dispatchQueueSettings } from '../../lambdas/shared/dispatch-queue-settings';

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

/** The dispatch queue and its DLQ, with the stack's redrive and visibility settings. */
export async function createDispatchQueues(sqs: SQSClient, namePrefix: string): Promise<DispatchQueues> {
  const dlq = await sqs.send(
    new CreateQueueCommand({
      QueueName: `${namePrefix}-dispatch-dlq`,
      Attributes: { MessageRetentionPeriod: String(dispatchQueueSettings.dlqRetentionDays * 86_400) },
    }),
  );
  const dlqUrl = dlq.QueueUrl!;
  const { Attributes } = await sqs.send(new GetQueueAttributesCommand({ QueueUrl: dlqUrl, AttributeNames: ['QueueArn'] }));
  const queue = await sqs.send(
    new CreateQueueCommand({
      QueueName: `${namePrefix}-dispatch`,
      Attributes: {
        VisibilityTimeout: String(dispatchQueueSettings.visibilityTimeoutSeconds),
        MessageRetentionPeriod: String(dispatchQueueSettings.retentionDays * 86_400),
        RedrivePolicy: JSON.stringify({ deadLetterTargetArn: Attributes?.QueueArn, maxReceiveCount: dispatchQueueSettings.maxReceiveCount }),
      },
    }),
  );
  const arn = await sqs.send(new GetQueueAttributesCommand({ QueueUrl: queue.QueueUrl!, AttributeNames: ['QueueArn'] }));
  return { queueUrl: queue.QueueUrl!, queueArn: arn.Attributes!.QueueArn!, dlqUrl };
}
