import * as z from '../shared/zod';
import { conversationHistory, conversationMessageSchema, cursorPageSchema, type PageBudget } from '../domain/conversations/read-conversations';
import { httpHandler, type AuthorizedRequest } from '../http/http-handler';
import { BUFFERED_RESPONSE_LIMIT_BYTES, bufferedBytes, ok } from '../http/responses';
import * as routes from '../routes';
import { conversationPath, pageQuery } from './conversation-schemas';

export const schemas = { path: conversationPath, query: z.strictObject(pageQuery), response: cursorPageSchema(conversationMessageSchema) };

/**
 * A message may be 400 KB of control characters (a send's values, a customer's text), seven bytes
 * each in Lambda's payload, so the 1 MB one Query reads can pass the buffered limit: the page ends
 * early, with its cursor, 1 MiB short of it, room for the cursor and headers (decision 229).
 */
const pageBudget: PageBudget = { bytes: BUFFERED_RESPONSE_LIMIT_BYTES - 2 ** 20, sizeOf: bufferedBytes };

/** GET /v1/conversations/{conversationId}/messages (docs/api.md#conversation-messages): newest first. */
export const getConversationMessages = async ({ principal, path, query }: AuthorizedRequest<typeof schemas>) =>
  ok(await conversationHistory(principal.workspaceId, path.conversationId, { ...query, budget: pageBudget }));

export const handler = httpHandler(routes.conversationMessages, schemas, getConversationMessages);
