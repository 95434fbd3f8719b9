import * as z from '../shared/zod';
import { webhookEndpointResourceSchema } from '../domain/webhooks/endpoint-resource';
import { registerEndpoint } from '../domain/webhooks/manage-endpoints';
import { httpHandler, type AuthorizedRequest } from '../http/http-handler';
import { created } from '../http/responses';
import * as routes from '../routes';
import { descriptionField, eventsField, urlField } from './webhook-endpoint-schemas';
import { bodyReading } from '../http/middleware/body-reading';

export const schemas = {
  body: z.strictObject({ url: urlField, events: z.optional(eventsField), description: z.optional(descriptionField) }),
  response: z.extend(webhookEndpointResourceSchema, {
    secret: z.string().register(z.globalRegistry, { description: 'The signing secret, `whsec_` and base64 (Standard Webhooks). Shown in this answer only.' }),
  }),
};

/** POST /v1/webhook-endpoints (docs/api.md#webhook-endpoints): 201 with the secret, the one time it is shown. */
export const createEndpoint = async ({ principal, body }: AuthorizedRequest<typeof schemas>) =>
  created(await registerEndpoint({ workspaceId: principal.workspaceId, url: body.url, events: body.events ?? null, description: body.description ?? null }, new Date()));

export const handler = httpHandler(routes.createWebhookEndpoint, schemas, createEndpoint, { bodyReading });
