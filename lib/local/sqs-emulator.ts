import { CreateQueueCommand, GetQueueAttributesCommand, type SQSClient } from '@aws-sdk/client-sqs';
import { dispatchQueueSettings } from '../../lambdas/shared/dispatch-queue-settings';

export interface SqsEmulator {
  endpoint: string;
  stop(): Promise<void>;
}

/**
 * fauxqs, an SQS emulator speaking the AWS JSON protocol, started in this process. It is
 * ESM-only, hence the dynamic import (tsx keeps it native).
 */
export async function startSqsEmulator(): Promise<SqsEmulator> {
  const { startFauxqs } = await import('fauxqs');
  const server = await startFauxqs({ port: 0, logger: false });
  return { endpoint: server.address, stop: () => server.stop() };
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
