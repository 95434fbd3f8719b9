import { listApprovedTemplates } from '../domain/templates/read-templates';
import { httpHandler, type AuthorizedRequest } from '../http/http-handler';
import { ok } from '../http/responses';
import { routes } from '../routes';

/** GET /v1/message-templates (public-api.md §4.10). */
export const listMessageTemplates = async ({ principal }: AuthorizedRequest) => ok({ items: await listApprovedTemplates(principal.workspaceId) });

export const handler = httpHandler(routes.listTemplates, {}, listMessageTemplates);
