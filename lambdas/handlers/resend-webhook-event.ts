import * as z from '../shared/zod';
import { resendEvent } from '../domain/webhooks/event-deliveries';
import { httpHandler, type AuthorizedRequest } from '../http/http-handler';
import { accepted } from '../http/responses';
import * as routes from '../routes';
import { eventDeliveryPath } from './webhook-delivery-schemas';

export const schemas = { path: eventDeliveryPath, response: z.object({ eventId: z.string() }) };

/** POST /v1/webhook-endpoints/{id}/deliveries/{eventId}/resend (docs/api.md#webhook-events). */
export const resendOne = async ({ principal, path }: AuthorizedRequest<typeof schemas>) => accepted(await resendEvent(principal.workspaceId, path.id, path.eventId));

export const handler = httpHandler(routes.resendWebhookEvent, schemas, resendOne);
