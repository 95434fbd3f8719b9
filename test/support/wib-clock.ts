import { setTimeout as sleep } from 'node:timers/promises';

const DAY_MS = 86_400_000;
/** WIB midnight is 17:00 UTC. */
const WIB_MIDNIGHT_UTC_MS = 17 * 3_600_000;

/**
 * Waits out the next WIB midnight when it is nearer than `marginMs`. For a test whose sends go
 * through a handler, each taking the real clock: two sends either side of 17:00 UTC fall on two WIB
 * days, and a `wib-day` dedupe rightly lets the second through.
 */
export async function clearOfWibMidnight(marginMs = 10_000): Promise<void> {
  const untilMidnight = DAY_MS - (((Date.now() - WIB_MIDNIGHT_UTC_MS) % DAY_MS) + DAY_MS) % DAY_MS;
  if (untilMidnight < marginMs) await sleep(untilMidnight + 50);
}
