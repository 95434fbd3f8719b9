import * as z from '../../shared/zod';

/** An instant as the API shows it: ISO 8601 with its zone (`2026-01-05T03:00:00Z`, `…00.123Z`). */
export const instant = () => z.iso.datetime({ offset: true });
