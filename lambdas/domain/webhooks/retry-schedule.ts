import { MAX_QUEUE_DELAY_SECONDS } from '../../shared/queue';

/**
 * When a failed delivery is tried again (docs/api.md#webhook-events, decision 79): after 5 s,
 * 30 s, 2 min, 10 min, 30 min, 1 h, 2 h, 4 h, 8 h and 10 h, eleven attempts over 25 h 42 min, all
 * with the event's one `webhook-id`. Then the event is given up for that endpoint (it can be
 * resent).
 */
export const RETRY_DELAYS_SECONDS = [5, 30, 120, 600, 1_800, 3_600, 7_200, 14_400, 28_800, 36_000] as const;
export const MAX_ATTEMPTS = RETRY_DELAYS_SECONDS.length + 1;


/** When attempt `attempt` (1-based), failed at `failedAt`, is followed by the next; undefined when it was the last. */
export function nextAttemptAt(attempt: number, failedAt: Date): Date | undefined {
  const delay = RETRY_DELAYS_SECONDS[attempt - 1];
  return delay === undefined ? undefined : new Date(failedAt.getTime() + delay * 1000);
}

/** How long to hold a queued attempt back before it is due at `dueAt`: at most one hop. */
export function queueDelaySeconds(dueAt: Date, now: Date): number {
  return Math.min(MAX_QUEUE_DELAY_SECONDS, Math.max(0, Math.ceil((dueAt.getTime() - now.getTime()) / 1000)));
}
