import * as z from '../shared/zod';
import { deliveryEventsForPhones, phoneEventsSchema } from '../domain/delivery/delivery-events';
import { httpHandler, type AuthorizedRequest, type ResponseBody } from '../http/http-handler';
import { ok } from '../http/responses';
import { orderedDates, orderedDatesMessage, wibDate } from '../http/schemas';
import { streamedItems, slices } from '../http/streamed-json';
import { streamingResponse } from '../http/streaming-response';
import * as routes from '../routes';
import { bodyReading } from '../http/middleware/body-reading';

export const schemas = {
  body: z.strictObject({
      phones: z.array(z.string().check(z.minLength(1))).check(z.minLength(1), z.maxLength(500)),
      startDate: wibDate(),
      endDate: wibDate(),
    }).check(z.refine(orderedDates, orderedDatesMessage)),
  response: z.object({ items: z.array(phoneEventsSchema) }),
};

/**
 * POST /v1/messages/delivery-status (docs/api.md#delivery-status). 500 busy phones over a long
 * period outgrow Lambda's buffered 6 MB, so the route streams the answer (decision 170); every
 * phone is read first, so a failed read is still an error answer, not a cut-off body.
 */
export const getDeliveryStatus = async ({ principal, body }: AuthorizedRequest<typeof schemas>) =>
  ok<ResponseBody<typeof schemas>>(streamedItems({}, slices(await deliveryEventsForPhones(principal.workspaceId, body.phones, body), 10)));

export const handler = httpHandler(routes.deliveryStatus, schemas, getDeliveryStatus, { bodyReading, streamingResponse });
