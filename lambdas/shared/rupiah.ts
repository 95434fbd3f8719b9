/**
 * Rupiah amounts are kept to the sen: a dispatch's amount, fixed when its send is accepted, and every
 * sum of amounts (a rollup's deltas, its shards, a report's totals). A rate with decimals otherwise
 * left float noise in list rows (0.30000000000000004) and in rollups, and `reports check` read that
 * noise as a rollup to put right (decision 168).
 */
export function rupiah(value: number): number {
  // From the amount's decimal form, not its binary one (0.145 × 100 is 14.4999…98), half a sen up,
  // and a negative amount as its positive one: a take-back cancels what its dispatch added.
  const sen = Math.round(Number((Math.abs(value) * 100).toPrecision(15)));
  return value < 0 ? -sen / 100 : sen / 100;
}
