/**
 * Rupiah amounts are kept to the sen: a dispatch's amount when it is fixed at its send, and every
 * sum of amounts (a rollup's deltas, its shards, a report's totals). A rate with decimals otherwise
 * left float noise in list rows (0.30000000000000004) and in rollups, and `reports check` read that
 * noise as a rollup to put right (decision 168).
 */
export const rupiah = (value: number): number => Math.round(value * 100) / 100;
