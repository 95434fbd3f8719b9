import * as z from '../shared/zod';
import { cursorPageSchema } from '../domain/conversations/read-conversations';
import { deliveryResourceSchema, listEventDeliveries } from '../domain/webhooks/event-deliveries';
import { httpHandler, type AuthorizedRequest } from '../http/http-handler';
import { ok } from '../http/responses';
import * as routes from '../routes';
import { pageQuery } from './conversation-schemas';
import { endpointPath } from './webhook-endpoint-schemas';

export const schemas = { path: endpointPath, query: z.strictObject(pageQuery), response: cursorPageSchema(deliveryResourceSchema) };

/** GET /v1/webhook-endpoints/{id}/deliveries (docs/api.md#webhook-events): newest event first. */
export const listDeliveries = async ({ principal, path, query }: AuthorizedRequest<typeof schemas>) => ok(await listEventDeliveries(principal.workspaceId, path.id, query));

export const handler = httpHandler(routes.listWebhookDeliveries, schemas, listDeliveries);
