import * as z from '../shared/zod';
import { bothDates, orderedDates, orderedDatesMessage, wholeNumberQuery, wibDate } from '../http/schemas';
import { wibDayCount } from '../domain/time/wib';

/**
 * Query parameters of the report endpoints (docs/api.md#reports and #limits). Query
 * values arrive as strings; a parameter given twice arrives as an array and fails a scalar rule.
 */
export const MAX_REPORT_DAYS = 366;

const page = wholeNumberQuery('must be a whole number ≥ 1', { min: 1 }, 1);
const limit = wholeNumberQuery('must be a whole number from 1 to 100000', { min: 1, max: 100_000 }, 50);
/** Repeated `trackingTags=a&trackingTags=b`; given once it is one tag. */
const trackingTags = z
  .pipe(
    z.transform((value) => (typeof value === 'string' ? [value] : value)),
    z.array(z.string().check(z.trim(), z.minLength(1), z.maxLength(256))).check(z.minLength(1), z.maxLength(20)),
  )
  .register(z.globalRegistry, { description: 'Repeat the parameter for several tags: `trackingTags=a&trackingTags=b`.' });

const period = { startDate: wibDate(), endDate: wibDate() };
const withinMaxPeriod = (value: { startDate: string; endDate: string }) =>
  !bothDates(value) || value.startDate > value.endDate || wibDayCount(value.startDate, value.endDate) <= MAX_REPORT_DAYS;
const maxPeriodMessage = { message: `the period may span at most ${MAX_REPORT_DAYS} days`, path: ['endDate'] };

export const tagDiscoveryQuery = z.strictObject({ ...period, page, limit, prefix: z.optional(z.string().check(z.maxLength(256))) }).check(z.refine(orderedDates, orderedDatesMessage), z.refine(withinMaxPeriod, maxPeriodMessage));

export const tagSummaryQuery = z.strictObject({ ...period, page, limit, trackingTags }).check(z.refine(orderedDates, orderedDatesMessage), z.refine(withinMaxPeriod, maxPeriodMessage));

/**
 * The dispatch list selects either by tags (`trackingTags`, with `match` ANY, the default, or
 * ALL) or the whole workspace (`scope=WORKSPACE`, without tags or match); neither or both is 422.
 */
export const dispatchListQuery = z.pipe(
  z
    .strictObject({
      ...period,
      page,
      limit,
      trackingTags: z.optional(trackingTags),
      scope: z.optional(z.literal('WORKSPACE', { error: 'the only scope is WORKSPACE' })),
      match: z.optional(z.enum(['ANY', 'ALL'], { error: 'match is ANY or ALL' })),
    })
    .check(
      z.refine(orderedDates, orderedDatesMessage),
      z.refine(withinMaxPeriod, maxPeriodMessage),
      z.superRefine((query, ctx) => {
        if (query.trackingTags && query.scope) ctx.addIssue({ code: 'custom', path: ['scope'], message: 'give trackingTags or scope=WORKSPACE, not both' });
        else if (!query.trackingTags && !query.scope) ctx.addIssue({ code: 'custom', path: ['trackingTags'], message: 'give trackingTags (with match) or scope=WORKSPACE' });
        else if (query.scope && query.match) ctx.addIssue({ code: 'custom', path: ['match'], message: 'match goes with trackingTags, not with scope' });
      }),
    ),
  z.transform(({ trackingTags: tags, scope, match, ...rest }) => ({
    ...rest,
    selector: scope ? ({ scope } as const) : { trackingTags: tags ?? [], match: match ?? ('ANY' as const) },
  })),
);
