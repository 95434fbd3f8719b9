import { z } from 'zod';

/** A path or body id: any 8-4-4-4-12 hex UUID. Anything else is 422, never a lookup. */
export const uuid = () => z.guid({ error: 'must be a UUID' });
