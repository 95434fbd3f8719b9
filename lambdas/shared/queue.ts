import type { SQSClient } from '@aws-sdk/client-sqs';

/** Where dispatch messages go: an SQS client and the queue URL it sends to. */
export interface QueueTarget {
  sqs: SQSClient;
  queueUrl: string;
}

/** SQS holds a message back at most this long (`DelaySeconds`); a longer wait is waited in hops of at most this. */
export const MAX_QUEUE_DELAY_SECONDS = 900;

/**
 * The `MessageGroupId` of a message on our standard queues: the workspace it belongs to. On a
 * standard queue the group names the message's tenant for SQS fair queues: when one workspace's
 * messages take more than their share of the consumer (a campaign's backlog, an endpoint that
 * answers slowly), SQS hands other workspaces' messages out first, and that workspace's wait
 * instead of everyone's. Messages of one group are still taken in parallel and in no order, as on
 * any standard queue (docs/deploy.md, "Delivery pace"; decision 135).
 */
export function tenantGroup(workspaceId: string): string {
  return workspaceId;
}
