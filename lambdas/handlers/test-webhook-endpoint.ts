import * as z from '../shared/zod';
import { sendTestEvent } from '../domain/webhooks/event-deliveries';
import { httpHandler, type AuthorizedRequest } from '../http/http-handler';
import { accepted } from '../http/responses';
import * as routes from '../routes';
import { endpointPath } from './webhook-endpoint-schemas';

export const schemas = { path: endpointPath, response: z.object({ eventId: z.string() }) };

/** POST /v1/webhook-endpoints/{id}/test (docs/api.md#webhook-events): a `webhook.test` event, delivered like any. */
export const testEndpoint = async ({ principal, path }: AuthorizedRequest<typeof schemas>) => accepted(await sendTestEvent(principal.workspaceId, path.id, new Date()));

export const handler = httpHandler(routes.testWebhookEndpoint, schemas, testEndpoint);
