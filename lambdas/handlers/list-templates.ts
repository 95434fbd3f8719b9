import * as z from '../shared/zod';
import { listApprovedTemplates } from '../domain/templates/read-templates';
import { httpHandler, type AuthorizedRequest } from '../http/http-handler';
import { ok } from '../http/responses';
import { templateResourceSchema } from '../domain/templates/template';
import * as routes from '../routes';

export const schemas = { response: z.object({ items: z.array(templateResourceSchema) }) };

/** GET /v1/message-templates (docs/api.md#list-templates). */
export const listMessageTemplates = async ({ principal }: AuthorizedRequest<typeof schemas>) => ok({ items: await listApprovedTemplates(principal.workspaceId) });

export const handler = httpHandler(routes.listTemplates, schemas, listMessageTemplates);
