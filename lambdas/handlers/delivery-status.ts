import * as z from '../shared/zod';
import { deliveryEventsForPhones, phoneEventsSchema } from '../domain/delivery/delivery-events';
import { httpHandler, type AuthorizedRequest } from '../http/http-handler';
import { ok } from '../http/responses';
import { orderedDates, orderedDatesMessage, wibDate } from '../http/schemas';
import * as routes from '../routes';

export const schemas = {
  body: z.strictObject({
      phones: z.array(z.string().check(z.minLength(1), z.maxLength(64))).check(z.minLength(1), z.maxLength(500)),
      startDate: wibDate(),
      endDate: wibDate(),
    }).check(z.refine(orderedDates, orderedDatesMessage)),
  response: z.object({ items: z.array(phoneEventsSchema) }),
};

/** POST /v1/messages/delivery-status (docs/api.md#delivery-status). */
export const getDeliveryStatus = async ({ principal, body }: AuthorizedRequest<typeof schemas>) =>
  ok({ items: await deliveryEventsForPhones(principal.workspaceId, body.phones, body) });

export const handler = httpHandler(routes.deliveryStatus, schemas, getDeliveryStatus);
