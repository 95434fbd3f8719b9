import * as z from '../shared/zod';
import { resendEventsSince } from '../domain/webhooks/event-deliveries';
import { httpHandler, type AuthorizedRequest } from '../http/http-handler';
import { accepted } from '../http/responses';
import * as routes from '../routes';
import { instant } from '../domain/time/instant';
import { endpointPath } from './webhook-endpoint-schemas';
import { bodyReading } from '../http/middleware/body-reading';

export const schemas = {
  path: endpointPath,
  body: z.strictObject({ since: z.iso.datetime({ offset: true, error: 'must be an ISO 8601 instant, e.g. 2026-11-20T08:00:00Z' }) }),
  response: z.object({ resent: z.int().check(z.gte(0)), nextSince: z.nullable(instant()) }),
};

/** POST /v1/webhook-endpoints/{id}/resend (docs/api.md#webhook-events): every event since a time. */
export const resendSince = async ({ principal, path, body }: AuthorizedRequest<typeof schemas>) =>
  accepted(await resendEventsSince(principal.workspaceId, path.id, new Date(body.since)));

export const handler = httpHandler(routes.resendWebhookEvents, schemas, resendSince, { bodyReading });
