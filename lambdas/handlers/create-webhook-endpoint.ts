import * as z from '../shared/zod';
import { webhookEndpointResourceSchema } from '../domain/webhooks/endpoint-resource';
import { registerEndpoint } from '../domain/webhooks/manage-endpoints';
import { httpHandler, type AuthorizedRequest } from '../http/http-handler';
import { created, replayedHeader } from '../http/responses';
import { idempotencyKeyHeaders } from '../shared/idempotency-key';
import * as routes from '../routes';
import { descriptionField, eventsField, urlField } from './webhook-endpoint-schemas';
import { bodyReading } from '../http/middleware/body-reading';

export const schemas = {
  body: z.strictObject({ url: urlField, events: z.optional(eventsField), description: z.optional(descriptionField) }),
  headers: idempotencyKeyHeaders,
  response: z.extend(webhookEndpointResourceSchema, {
    secret: z.string().register(z.globalRegistry, { description: 'The signing secret, `whsec_` and base64 (Standard Webhooks). Shown in this answer only.' }),
  }),
};

/**
 * POST /v1/webhook-endpoints (docs/api.md#webhook-endpoints): 201 with the secret, the one time it
 * is shown, or, for a repeat with its `Idempotency-Key`, the same answer again.
 */
export const createEndpoint = async ({ principal, body, headers }: AuthorizedRequest<typeof schemas>) => {
  const { answer, replayed } = await registerEndpoint(
    { workspaceId: principal.workspaceId, url: body.url, events: body.events ?? null, description: body.description ?? null },
    new Date(),
    {},
    headers['idempotency-key'],
  );
  return created(answer, replayedHeader(replayed));
};

export const handler = httpHandler(routes.createWebhookEndpoint, schemas, createEndpoint, { bodyReading });
