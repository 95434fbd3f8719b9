import * as z from '../shared/zod';
import { conversationSchema, cursorPageSchema, listConversations } from '../domain/conversations/read-conversations';
import { httpHandler, type AuthorizedRequest } from '../http/http-handler';
import { ok } from '../http/responses';
import * as routes from '../routes';
import { pageQuery } from './conversation-schemas';

export const schemas = { query: z.strictObject({ ...pageQuery, phone: z.optional(z.string().check(z.minLength(1), z.maxLength(64))) }), response: cursorPageSchema(conversationSchema) };

/** GET /v1/conversations (docs/api.md#list-conversations). */
export const getConversations = async ({ principal, query }: AuthorizedRequest<typeof schemas>) => ok(await listConversations(principal.workspaceId, query));

export const handler = httpHandler(routes.listConversations, schemas, getConversations);
