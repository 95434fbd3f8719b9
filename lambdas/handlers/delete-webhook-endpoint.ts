import { removeEndpoint } from '../domain/webhooks/manage-endpoints';
import { httpHandler, type AuthorizedRequest } from '../http/http-handler';
import { noContent } from '../http/responses';
import * as routes from '../routes';
import { endpointPath } from './webhook-endpoint-schemas';

export const schemas = { path: endpointPath };

/** DELETE /v1/webhook-endpoints/{id}: 204, and no more events go there. */
export const deleteEndpoint = async ({ principal, path }: AuthorizedRequest<typeof schemas>) => {
  await removeEndpoint(principal.workspaceId, path.id);
  return noContent();
};

export const handler = httpHandler(routes.deleteWebhookEndpoint, schemas, deleteEndpoint);
