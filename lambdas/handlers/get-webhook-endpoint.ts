import { webhookEndpointResourceSchema } from '../domain/webhooks/endpoint-resource';
import { readEndpoint } from '../domain/webhooks/manage-endpoints';
import { httpHandler, type AuthorizedRequest } from '../http/http-handler';
import { ok } from '../http/responses';
import * as routes from '../routes';
import { endpointPath } from './webhook-endpoint-schemas';

export const schemas = { path: endpointPath, response: webhookEndpointResourceSchema };

/** GET /v1/webhook-endpoints/{id}: never the secret. */
export const getEndpoint = async ({ principal, path }: AuthorizedRequest<typeof schemas>) => ok(await readEndpoint(principal.workspaceId, path.id));

export const handler = httpHandler(routes.getWebhookEndpoint, schemas, getEndpoint);
