import * as z from '../shared/zod';
import { listApprovedTemplates } from '../domain/templates/read-templates';
import { httpHandler, type AuthorizedRequest, type ResponseBody } from '../http/http-handler';
import { ok } from '../http/responses';
import { streamedItems, slices } from '../http/streamed-json';
import { streamingResponse } from '../http/streaming-response';
import { templateResourceSchema } from '../domain/templates/template';
import * as routes from '../routes';

export const schemas = { response: z.object({ items: z.array(templateResourceSchema) }) };

/**
 * GET /v1/message-templates (docs/api.md#list-templates). The contract gives the list no paging and a
 * template keeps its versions, so a workspace's list can outgrow Lambda's buffered 6 MB: the route
 * streams it (decision 173), read whole first so a failed read is still an error answer.
 */
export const listMessageTemplates = async ({ principal }: AuthorizedRequest<typeof schemas>) =>
  ok<ResponseBody<typeof schemas>>(streamedItems({}, slices(await listApprovedTemplates(principal.workspaceId), 50)));

export const handler = httpHandler(routes.listTemplates, schemas, listMessageTemplates, { streamingResponse });
