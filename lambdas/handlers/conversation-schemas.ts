import * as z from 'zod';
import { uuid } from '../http/schemas';

/** Query parameters of the conversation endpoints (docs/api.md#pagination): limit 1..100, default 20. */
export const pageQuery = {
  limit: z.coerce.number({ error: 'must be a whole number from 1 to 100' }).int('must be a whole number from 1 to 100').min(1, 'must be a whole number from 1 to 100').max(100, 'must be a whole number from 1 to 100').default(20),
  cursor: z.string().min(1).max(2048).optional(),
};

export const conversationPath = z.object({ conversationId: uuid() });
