/**
 * Calendar dates in the contract are WIB (Asia/Jakarta, UTC+7, no daylight saving), inclusive.
 * WIB day D is the UTC interval [D−1 17:00Z, D 17:00Z).
 */
const WIB_OFFSET_MS = 7 * 60 * 60 * 1000;
const DATE = /^(\d{4})-(\d{2})-(\d{2})$/;

/** The WIB calendar date (YYYY-MM-DD) an instant falls on. */
export function wibDay(instant: Date): string {
  return new Date(instant.getTime() + WIB_OFFSET_MS).toISOString().slice(0, 10);
}

/** True for a YYYY-MM-DD string naming a day that exists (2026-02-30 does not). */
export function isCalendarDate(value: string): boolean {
  const match = DATE.exec(value);
  if (!match) return false;
  const [, y, m, d] = match.map(Number) as [number, number, number, number];
  const date = new Date(Date.UTC(y, m - 1, d));
  return date.getUTCFullYear() === y && date.getUTCMonth() === m - 1 && date.getUTCDate() === d;
}

/** The UTC instants bounding WIB days `from`..`to` inclusive: [start, end). */
export function wibRange(from: string, to: string): { start: string; end: string } {
  const start = new Date(Date.parse(`${from}T00:00:00.000Z`) - WIB_OFFSET_MS);
  const end = new Date(Date.parse(`${to}T00:00:00.000Z`) - WIB_OFFSET_MS + 24 * 60 * 60 * 1000);
  return { start: start.toISOString(), end: end.toISOString() };
}

/** How many WIB dates `from` to `to` spans, inclusive: arithmetic, however far apart they are. */
export function wibDayCount(from: string, to: string): number {
  return Math.round((Date.parse(`${to}T00:00:00.000Z`) - Date.parse(`${from}T00:00:00.000Z`)) / (24 * 60 * 60 * 1000)) + 1;
}

/** Every WIB date from `from` to `to`, inclusive, in order. */
export function wibDays(from: string, to: string): string[] {
  const days: string[] = [];
  for (let t = Date.parse(`${from}T00:00:00.000Z`); t <= Date.parse(`${to}T00:00:00.000Z`); t += 24 * 60 * 60 * 1000) days.push(new Date(t).toISOString().slice(0, 10));
  return days;
}
