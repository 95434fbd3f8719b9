import * as z from '../shared/zod';
import { DEFAULT_SECRET_OVERLAP_SECONDS, MAX_SECRET_OVERLAP_SECONDS, rotateSecret } from '../domain/webhooks/manage-endpoints';
import { httpHandler, type AuthorizedRequest } from '../http/http-handler';
import { ok, replayedHeader } from '../http/responses';
import { idempotencyKeyHeaders } from '../shared/idempotency-key';
import * as routes from '../routes';
import { endpointPath } from './webhook-endpoint-schemas';
import { bodyReading } from '../http/middleware/body-reading';

const OVERLAP_MESSAGE = `must be a whole number of seconds from 0 to ${MAX_SECRET_OVERLAP_SECONDS}`;

export const schemas = {
  path: endpointPath,
  headers: idempotencyKeyHeaders,
  body: z.strictObject({
    overlapSeconds: z._default(z
      .number({ error: OVERLAP_MESSAGE }).check(z.int(OVERLAP_MESSAGE), z.gte(0, OVERLAP_MESSAGE), z.lte(MAX_SECRET_OVERLAP_SECONDS, OVERLAP_MESSAGE)), DEFAULT_SECRET_OVERLAP_SECONDS).register(z.globalRegistry, { description: `How long the old secret keeps signing beside the new one; default ${DEFAULT_SECRET_OVERLAP_SECONDS} (24 h), at most ${MAX_SECRET_OVERLAP_SECONDS} (7 days); 0 retires it at once.` }),
  }),
  response: z.object({
    secret: z.string().register(z.globalRegistry, { description: 'The new signing secret, shown in this answer only.' }),
    previousSecretExpiresAt: z.string().register(z.globalRegistry, { description: 'Until then, each event is signed with both secrets.' }),
  }),
};

/**
 * POST /v1/webhook-endpoints/{id}/rotate-secret: a new secret, the old one still signing for the
 * overlap, or, for a repeat with its `Idempotency-Key`, the same answer again, rotating nothing.
 */
export const rotateEndpointSecret = async ({ principal, path, body, headers }: AuthorizedRequest<typeof schemas>) => {
  const { answer, replayed } = await rotateSecret(principal.workspaceId, path.id, body.overlapSeconds, new Date(), {}, headers['idempotency-key']);
  return ok(answer, replayedHeader(replayed));
};

export const handler = httpHandler(routes.rotateWebhookSecret, schemas, rotateEndpointSecret, { bodyReading });
