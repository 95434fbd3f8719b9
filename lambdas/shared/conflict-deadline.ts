import { AsyncLocalStorage } from 'node:async_hooks';

/**
 * The time every wait for conflicts in the work at hand ends by (writes.ts, `conflictDeadline`): a
 * request's (its function's time, less the time to answer), and within one wait, that wait's.
 * Without it each wait took its own 8 s: a WhatsApp webhook POST with several contended items, or
 * a template save whose transaction waits inside the save's own loop, ran past the function's 10 s.
 * A module of its own, without the SDK, as every HTTP function sets it.
 */
const conflictDeadlines = new AsyncLocalStorage<number>();

/** Runs `work` with every wait for conflicts in it ending by `deadline` (ms since the epoch), or by an earlier one already set. */
export function withinConflictDeadline<T>(deadline: number, work: () => Promise<T>): Promise<T> {
  const outer = conflictDeadlines.getStore();
  return conflictDeadlines.run(outer === undefined ? deadline : Math.min(outer, deadline), work);
}

/** The deadline of the work at hand, if one was set. */
export const outerConflictDeadline = (): number | undefined => conflictDeadlines.getStore();
