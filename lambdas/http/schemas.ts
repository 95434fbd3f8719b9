import * as z from '../shared/zod';
import { isCalendarDate } from '../domain/time/wib';

/**
 * A path, query or body id: any 8-4-4-4-12 hex UUID, in either case, read as the lower case every id
 * is written in. RFC 9562 reads UUIDs case-insensitively, and some clients print them upper case
 * (Swift's `uuidString`): taken as given, such an id found nothing, and send-check answered "not
 * sent" for a message that was. Anything else is 422, never a lookup.
 */
export const uuid = () => z.pipe(z.guid({ error: 'must be a UUID' }), z.transform((id: string) => id.toLowerCase()));

/** A WIB calendar date, YYYY-MM-DD, that exists (2026-02-30 does not). */
export const wibDate = () =>
  z.string().check(z.regex(/^\d{4}-\d{2}-\d{2}$/, { error: 'must be a date as YYYY-MM-DD', abort: true }), z.refine(isCalendarDate, 'is not a calendar date'));

/** Both dates real: cross-field rules judge only those, so a bad date gets one message. */
export const bothDates = (value: { startDate?: unknown; endDate?: unknown }): value is { startDate: string; endDate: string } =>
  typeof value.startDate === 'string' && typeof value.endDate === 'string' && isCalendarDate(value.startDate) && isCalendarDate(value.endDate);

/** A start date not after its end date (both inclusive). */
export const orderedDates = (value: { startDate: string; endDate: string }) => !bothDates(value) || value.startDate <= value.endDate;
export const orderedDatesMessage = { message: 'startDate must not be after endDate', path: ['startDate'] };

/**
 * An optional query's whole number, written in decimal digits (`50`), between `min` and `max`,
 * `fallback` when absent: a number written any other way (`0x10`, `1e3`, `1.0`, ` 1`) is 422 with
 * `message`, where a plain coercion read it as some number the client never wrote.
 */
export const wholeNumberQuery = (message: string, bounds: { min: number; max?: number }, fallback: number) =>
  // A prefault (the value an absent parameter is read as), which the document names as its default;
  // zod leaves a default over a transform out of it.
  z.prefault(
    z.pipe(
      z.transform((value: unknown) => (typeof value === 'string' && /^\d+$/.test(value) ? Number(value) : value)),
      z.number({ error: message }).check(z.int(message), z.gte(bounds.min, message), ...(bounds.max === undefined ? [] : [z.lte(bounds.max, message)])),
    ),
    fallback,
  );
