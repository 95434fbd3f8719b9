import * as z from '../../shared/zod';

/** An instant as the API shows it: ISO 8601 with its zone (`2026-01-05T03:00:00Z`, `…00.123Z`). */
export const instant = () => z.iso.datetime({ offset: true });

/**
 * An instant given with any offset (a template file written in WIB, `…T09:00:00+07:00`), kept in
 * UTC as every response shows times (docs/api.md#conventions) and as stored times compare as
 * strings. One already in UTC is kept as written.
 */
export const utcInstant = () => z.pipe(z.iso.datetime({ offset: true }), z.transform((text: string) => (text.endsWith('Z') ? text : new Date(text).toISOString())));
