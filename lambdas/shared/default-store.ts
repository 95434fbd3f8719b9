import { dynamo, sqs } from './clients';
import { required } from './config';
import type { QueueTarget } from './queue';
import type { Store } from './store';

let fromConfig: Store | undefined;

/** The function's own table, from TABLE_NAME; resolved on first use, then reused. */
export function defaultStore(): Store {
  fromConfig ??= { db: dynamo, tableName: required('TABLE_NAME') };
  return fromConfig;
}

let queueFromConfig: QueueTarget | undefined;

/** The function's dispatch queue, from QUEUE_URL; resolved on first use, then reused. */
export function defaultQueue(): QueueTarget {
  queueFromConfig ??= { sqs, queueUrl: required('QUEUE_URL') };
  return queueFromConfig;
}

let webhookQueueFromConfig: QueueTarget | undefined;

/** The function's webhook-events queue, from WEBHOOK_QUEUE_URL; resolved on first use, then reused. */
export function defaultWebhookQueue(): QueueTarget {
  webhookQueueFromConfig ??= { sqs, queueUrl: required('WEBHOOK_QUEUE_URL') };
  return webhookQueueFromConfig;
}
