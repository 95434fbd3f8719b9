import * as z from '../shared/zod';
import { uuid, wholeNumberQuery } from '../http/schemas';

/** Query parameters of the conversation endpoints (docs/api.md#pagination): limit 1..100, default 20. */
export const pageQuery = {
  limit: wholeNumberQuery('must be a whole number from 1 to 100', { min: 1, max: 100 }, 20),
  cursor: z.optional(z.string().check(z.minLength(1), z.maxLength(2048))),
};

export const conversationPath = z.object({ conversationId: uuid() });
