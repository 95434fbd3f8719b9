import * as z from '../shared/zod';
import { DEFAULT_SECRET_OVERLAP_SECONDS, MAX_SECRET_OVERLAP_SECONDS, rotateSecret } from '../domain/webhooks/manage-endpoints';
import { httpHandler, type AuthorizedRequest } from '../http/http-handler';
import { ok } from '../http/responses';
import * as routes from '../routes';
import { endpointPath } from './webhook-endpoint-schemas';
import { bodyReading } from '../http/middleware/body-reading';

const OVERLAP_MESSAGE = `must be a whole number of seconds from 0 to ${MAX_SECRET_OVERLAP_SECONDS}`;

export const schemas = {
  path: endpointPath,
  body: z.strictObject({
    overlapSeconds: z._default(z
      .number({ error: OVERLAP_MESSAGE }).check(z.int(OVERLAP_MESSAGE), z.gte(0, OVERLAP_MESSAGE), z.lte(MAX_SECRET_OVERLAP_SECONDS, OVERLAP_MESSAGE)), DEFAULT_SECRET_OVERLAP_SECONDS).register(z.globalRegistry, { description: `How long the old secret keeps signing beside the new one; default ${DEFAULT_SECRET_OVERLAP_SECONDS} (24 h), at most ${MAX_SECRET_OVERLAP_SECONDS} (7 days); 0 retires it at once.` }),
  }),
  response: z.object({
    secret: z.string().register(z.globalRegistry, { description: 'The new signing secret, shown in this answer only.' }),
    previousSecretExpiresAt: z.string().register(z.globalRegistry, { description: 'Until then, each event is signed with both secrets.' }),
  }),
};

/** POST /v1/webhook-endpoints/{id}/rotate-secret: a new secret, the old one still signing for the overlap. */
export const rotateEndpointSecret = async ({ principal, path, body }: AuthorizedRequest<typeof schemas>) =>
  ok(await rotateSecret(principal.workspaceId, path.id, body.overlapSeconds, new Date()));

export const handler = httpHandler(routes.rotateWebhookSecret, schemas, rotateEndpointSecret, { bodyReading });
