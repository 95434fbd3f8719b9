import { conversationSchema, getConversation } from '../domain/conversations/read-conversations';
import { httpHandler, type AuthorizedRequest } from '../http/http-handler';
import { ok } from '../http/responses';
import * as routes from '../routes';
import { conversationPath } from './conversation-schemas';

export const schemas = { path: conversationPath, response: conversationSchema };

/** GET /v1/conversations/{conversationId} (docs/api.md#read-a-conversation). */
export const getOneConversation = async ({ principal, path }: AuthorizedRequest<typeof schemas>) => ok(await getConversation(principal.workspaceId, path.conversationId));

export const handler = httpHandler(routes.getConversation, schemas, getOneConversation);
