import { Duration, type RemovalPolicy } from 'aws-cdk-lib';
import type { IKey } from 'aws-cdk-lib/aws-kms';
import { Queue, QueueEncryption, type QueueProps } from 'aws-cdk-lib/aws-sqs';
import { Construct } from 'constructs';
import { dispatchQueueSettings } from '../../lambdas/shared/dispatch-queue-settings';

/**
 * The dispatch queue and its DLQ: encrypted (SQS-managed, or the given customer-managed key, which
 * the queues' grants then cover), TLS-only, with the shared redrive settings. The webhook-events
 * queue is built alike, with its own settings.
 */
export class DispatchQueue extends Construct {
  readonly queue: Queue;
  readonly deadLetterQueue: Queue;

  constructor(
    scope: Construct,
    id: string,
    props: { removalPolicy: RemovalPolicy; encryptionKey?: IKey | undefined; settings?: Pick<typeof dispatchQueueSettings, 'visibilityTimeoutSeconds' | 'retentionDays' | 'dlqRetentionDays' | 'maxReceiveCount'> },
  ) {
    super(scope, id);
    const settings = props.settings ?? dispatchQueueSettings;
    const encryption = queueEncryption(props.encryptionKey);
    this.deadLetterQueue = new Queue(this, 'DeadLetterQueue', {
      ...encryption,
      enforceSSL: true,
      retentionPeriod: Duration.days(settings.dlqRetentionDays),
      removalPolicy: props.removalPolicy,
    });
    this.queue = new Queue(this, 'Queue', {
      ...encryption,
      enforceSSL: true,
      visibilityTimeout: Duration.seconds(settings.visibilityTimeoutSeconds),
      retentionPeriod: Duration.days(settings.retentionDays),
      deadLetterQueue: { queue: this.deadLetterQueue, maxReceiveCount: settings.maxReceiveCount },
      removalPolicy: props.removalPolicy,
    });
  }
}

/** Every queue of the stack: SQS-managed encryption, or the stack's customer-managed key, whose grants then cover it. */
export function queueEncryption(key: IKey | undefined): Pick<QueueProps, 'encryption' | 'encryptionMasterKey'> {
  return key ? { encryption: QueueEncryption.KMS, encryptionMasterKey: key } : { encryption: QueueEncryption.SQS_MANAGED };
}
