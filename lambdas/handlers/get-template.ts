import * as z from '../shared/zod';
import { getApprovedTemplate } from '../domain/templates/read-templates';
import { templateResourceSchema } from '../domain/templates/template';
import { httpHandler, type AuthorizedRequest } from '../http/http-handler';
import { ok } from '../http/responses';
import { uuid } from '../http/schemas';
import * as routes from '../routes';

export const schemas = { path: z.object({ templateId: uuid() }), response: templateResourceSchema };

/** GET /v1/message-templates/{templateId} (docs/api.md#read-a-template): the template at top level. */
export const getMessageTemplate = async ({ principal, path }: AuthorizedRequest<typeof schemas>) =>
  ok(await getApprovedTemplate(principal.workspaceId, path.templateId));

export const handler = httpHandler(routes.getTemplate, schemas, getMessageTemplate);
