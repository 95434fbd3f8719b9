import * as z from '../shared/zod';
import { uuid } from '../http/schemas';

/** Query parameters of the conversation endpoints (docs/api.md#pagination): limit 1..100, default 20. */
export const pageQuery = {
  limit: z._default(z.coerce.number({ error: 'must be a whole number from 1 to 100' }).check(z.int('must be a whole number from 1 to 100'), z.gte(1, 'must be a whole number from 1 to 100'), z.lte(100, 'must be a whole number from 1 to 100')), 20),
  cursor: z.optional(z.string().check(z.minLength(1), z.maxLength(2048))),
};

export const conversationPath = z.object({ conversationId: uuid() });
