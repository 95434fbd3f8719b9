import * as z from '../shared/zod';
import { publicHttpHandler, type HttpRequest, type ResponseBody } from '../http/public-http-handler';
import { ok } from '../http/responses';
import * as routes from '../routes';

export const SERVICE_NAME = 'messaging-api-external';

export const schemas = {
  response: z.strictObject({ success: z.literal(true), data: z.strictObject({ status: z.literal('ok'), service: z.literal(SERVICE_NAME) }) }),
};

/** GET /health (docs/api.md#health): no key, exactly this body. */
export const getHealth = (_request: HttpRequest<typeof schemas>) => Promise.resolve(ok<ResponseBody<typeof schemas>>({ success: true, data: { status: 'ok', service: SERVICE_NAME } }));

export const handler = publicHttpHandler(routes.health, schemas, getHealth);
