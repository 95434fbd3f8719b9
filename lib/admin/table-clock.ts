import type { Store } from '../../lambdas/shared/store';

/**
 * The time by AWS's clock, for a command whose time is weighed against Meta's (an operator's lift
 * of an opt-out, decision 203): an operator's machine may run minutes off, and AWS's does not. The
 * SDK measures the offset from each answer's `Date` header (its clock-skew correction), so it holds
 * after the command's first call to the table; before any, it is the local clock. Whole seconds,
 * as the header gives them.
 */
export function tableClock(store: Store): Date {
  return new Date(Date.now() + (store.db.config.systemClockOffset ?? 0));
}

/** The earlier of two moments. */
export const earlier = (a: Date, b: Date): Date => (a.getTime() <= b.getTime() ? a : b);
