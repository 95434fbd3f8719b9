import * as z from '../shared/zod';
import { endpointPath } from './webhook-endpoint-schemas';

/** The path of POST /v1/webhook-endpoints/{id}/deliveries/{eventId}/resend: an endpoint and one of its events. */
export const eventDeliveryPath = z.extend(endpointPath, {
  eventId: z.string().check(z.regex(/^evt_[0-9a-f]{28}$/, 'must be an event id: evt_ and 28 lowercase hex digits')),
});
