import * as z from '../shared/zod';
import { webhookEndpointResourceSchema } from '../domain/webhooks/endpoint-resource';
import { changeEndpoint } from '../domain/webhooks/manage-endpoints';
import { httpHandler, type AuthorizedRequest } from '../http/http-handler';
import { ok } from '../http/responses';
import * as routes from '../routes';
import { descriptionField, endpointPath, eventsField, urlField } from './webhook-endpoint-schemas';
import { bodyReading } from '../http/middleware/body-reading';

export const schemas = {
  path: endpointPath,
  body: z
    .strictObject({
      url: z.optional(urlField),
      events: z.optional(eventsField),
      description: z.optional(descriptionField),
      // Endpoints are disabled by delivery (410, or failing for days); a caller can only turn one back on.
      status: z.optional(z.literal('enabled', { error: 'can only be "enabled": it re-enables a disabled endpoint' })),
    }).check(z.refine((patch) => Object.keys(patch).length > 0, { message: 'name at least one of url, events, description, status', when: ({ issues }) => issues.length === 0 })),
  response: webhookEndpointResourceSchema,
};

/** PATCH /v1/webhook-endpoints/{id}: changes what the body names; a new url is checked again. */
export const updateEndpoint = async ({ principal, path, body }: AuthorizedRequest<typeof schemas>) => ok(await changeEndpoint(principal.workspaceId, path.id, body, new Date()));

export const handler = httpHandler(routes.updateWebhookEndpoint, schemas, updateEndpoint, { bodyReading });
