import * as z from '../shared/zod';
import { conversationHistory, conversationMessageSchema, cursorPageSchema } from '../domain/conversations/read-conversations';
import { httpHandler, type AuthorizedRequest } from '../http/http-handler';
import { ok } from '../http/responses';
import * as routes from '../routes';
import { conversationPath, pageQuery } from './conversation-schemas';

export const schemas = { path: conversationPath, query: z.strictObject(pageQuery), response: cursorPageSchema(conversationMessageSchema) };

/** GET /v1/conversations/{conversationId}/messages (docs/api.md#conversation-messages): newest first. */
export const getConversationMessages = async ({ principal, path, query }: AuthorizedRequest<typeof schemas>) =>
  ok(await conversationHistory(principal.workspaceId, path.conversationId, query));

export const handler = httpHandler(routes.conversationMessages, schemas, getConversationMessages);
