import * as z from '../shared/zod';
import { webhookEndpointResourceSchema } from '../domain/webhooks/endpoint-resource';
import { listEndpoints } from '../domain/webhooks/manage-endpoints';
import { httpHandler, type AuthorizedRequest } from '../http/http-handler';
import { ok } from '../http/responses';
import * as routes from '../routes';

export const schemas = { response: z.object({ items: z.array(webhookEndpointResourceSchema) }) };

/** GET /v1/webhook-endpoints: every endpoint of the workspace in one page (at most WEBHOOK_ENDPOINTS_PER_WORKSPACE), oldest first. */
export const listEndpointsOfWorkspace = async ({ principal }: AuthorizedRequest<typeof schemas>) => ok({ items: await listEndpoints(principal.workspaceId) });

export const handler = httpHandler(routes.listWebhookEndpoints, schemas, listEndpointsOfWorkspace);
