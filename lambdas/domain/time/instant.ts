import * as z from '../../shared/zod';

/** An instant as the API shows it: ISO 8601 with its zone (`2026-01-05T03:00:00Z`, `…00.123Z`). */
export const instant = () => z.iso.datetime({ offset: true });

/**
 * An instant given with any offset (a template file written in WIB, `…T09:00:00+07:00`) as every
 * response shows times, in UTC (docs/api.md#conventions). One already in UTC is kept as written.
 * Only what is answered: a stored time is compared as it was stored (a template's marks, decision 183).
 */
export const inUtc = (text: string): string => (text.endsWith('Z') ? text : new Date(text).toISOString());
