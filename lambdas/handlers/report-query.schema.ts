import { z } from 'zod';
import { bothDates, orderedDates, orderedDatesMessage, wibDate } from '../http/schemas';
import { wibDays } from '../domain/time/wib';

/**
 * Query parameters of the report endpoints (public-api.md §4.3–4.5, §8; DESIGN §3.8). Query
 * values arrive as strings; a parameter given twice arrives as an array and fails a scalar rule.
 */
export const MAX_REPORT_DAYS = 366;

const page = z.coerce.number({ error: 'must be a whole number ≥ 1' }).int('must be a whole number ≥ 1').min(1, 'must be a whole number ≥ 1').default(1);
const limit = z.coerce.number({ error: 'must be a whole number from 1 to 100000' }).int('must be a whole number from 1 to 100000').min(1, 'must be a whole number from 1 to 100000').max(100_000, 'must be a whole number from 1 to 100000').default(50);
/** Repeated `trackingTags=a&trackingTags=b`; given once it is one tag. */
const trackingTags = z.preprocess((value) => (typeof value === 'string' ? [value] : value), z.array(z.string().trim().min(1).max(256)).min(1).max(20));

const period = { startDate: wibDate(), endDate: wibDate() };
const withinMaxPeriod = (value: { startDate: string; endDate: string }) =>
  !bothDates(value) || value.startDate > value.endDate || wibDays(value.startDate, value.endDate).length <= MAX_REPORT_DAYS;
const maxPeriodMessage = { message: `the period may span at most ${MAX_REPORT_DAYS} days`, path: ['endDate'] };

export const tagDiscoveryQuery = z
  .object({ ...period, page, limit, prefix: z.string().min(1).max(256).optional() })
  .refine(orderedDates, orderedDatesMessage)
  .refine(withinMaxPeriod, maxPeriodMessage);

export const tagSummaryQuery = z
  .object({ ...period, page, limit, trackingTags })
  .refine(orderedDates, orderedDatesMessage)
  .refine(withinMaxPeriod, maxPeriodMessage);
