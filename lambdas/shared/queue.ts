import { SendMessageBatchCommand, type SQSClient } from '@aws-sdk/client-sqs';
import { mapWithConcurrency } from './concurrency';

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

/** SQS takes at most ten messages in one SendMessageBatch. */
const MESSAGES_PER_REQUEST = 10;

/**
 * The bytes of message bodies one SendMessageBatch carries at most. SQS refuses a request whose
 * bodies add up to more than its limit (`BatchRequestTooLong`: every message in it); that limit is
 * 1 MiB since 2025 and was 256 KiB before, which a queue made then may still hold. A request filled
 * to 16 KiB under the smaller is taken by either; ten events of a few KB each still go together.
 */
const REQUEST_BYTES = 240 * 1024;

/**
 * What a body's JSON may hold that a queue refuses: U+FFFE and U+FFFF, outside the characters SQS
 * takes (#x9 | #xA | #xD | #x20–#xD7FF | #xE000–#xFFFD | #x10000–#x10FFFF); and the UTF-16 halves of
 * any character past U+FFFF, which SQS takes but the local emulator (fauxqs) refuses. JSON.stringify
 * already escapes the control characters and a lone surrogate.
 */
const UNSENDABLE = /[\uD800-\uDFFF\uFFFE\uFFFF]/g;

/**
 * A body as a queue message's text: its JSON, with every character a queue could refuse written as
 * a `\uXXXX` escape, so a customer's text (an emoji, a U+FFFF) never makes a message the queue
 * refuses. JSON.parse reads back the same value, so a consumer sees no difference.
 */
export function queueText(body: unknown): string {
  return JSON.stringify(body).replace(UNSENDABLE, (unit) => `\\u${unit.charCodeAt(0).toString(16)}`);
}

/** An entry SQS answered for and did not take (SendMessageBatch's `Failed`). */
export class QueueRefusal extends Error {
  constructor(readonly code: string) {
    super(`The queue refused a message: ${code}`);
    this.name = 'QueueRefusal';
  }
}

/**
 * The messages' positions, in order, grouped into requests of at most ten messages and
 * REQUEST_BYTES. A message larger than that goes in a request of its own, which SQS judges by the
 * queue's limit for one message: refused, it fails alone.
 */
function requestsOf(bodies: readonly string[]): number[][] {
  const requests: number[][] = [];
  let request: number[] = [];
  let bytes = 0;
  bodies.forEach((body, position) => {
    const size = Buffer.byteLength(body);
    if (request.length === MESSAGES_PER_REQUEST || (request.length && bytes + size > REQUEST_BYTES)) {
      requests.push(request);
      request = [];
      bytes = 0;
    }
    request.push(position);
    bytes += size;
  });
  if (request.length) requests.push(request);
  return requests;
}

/**
 * Puts the bodies on the queue (`queueText`), each in its workspace's group and held back its
 * `delaySeconds` (at most SQS's 15 minutes), ten to a request or fewer when they are long
 * (`requestsOf`), `requestsInFlight` requests at once. Returns the positions of those it did not
 * take, with why: a `QueueRefusal`, or the error of the request that carried it.
 */
export async function sendBatched(queue: QueueTarget, messages: readonly { body: { workspaceId: string }; delaySeconds?: number | undefined }[], requestsInFlight = 1): Promise<Map<number, Error>> {
  const entries = messages.map(({ body, delaySeconds = 0 }) => ({
    MessageBody: queueText(body),
    MessageGroupId: tenantGroup(body.workspaceId),
    ...(delaySeconds ? { DelaySeconds: Math.min(MAX_QUEUE_DELAY_SECONDS, delaySeconds) } : {}),
  }));
  const refused = new Map<number, Error>();
  await mapWithConcurrency(requestsOf(entries.map((entry) => entry.MessageBody)), requestsInFlight, async (positions) => {
    try {
      const { Failed = [] } = await queue.sqs.send(new SendMessageBatchCommand({ QueueUrl: queue.queueUrl, Entries: positions.map((position) => ({ Id: String(position), ...entries[position]! })) }));
      for (const entry of Failed) refused.set(Number(entry.Id), new QueueRefusal(entry.Code ?? 'unknown'));
    } catch (error) {
      for (const position of positions) refused.set(position, error instanceof Error ? error : new Error(String(error)));
    }
  });
  return refused;
}
