import { publicHttpHandler, type ResponseBody } from '../http/public-http-handler';
import { ok } from '../http/responses';
import * as routes from '../routes';
import type { schemas } from './health.openapi';

export const SERVICE_NAME = 'messaging-api-external';

/** GET /health (docs/api.md#health): no key, exactly this body. */
export const getHealth = () => Promise.resolve(ok<ResponseBody<typeof schemas>>({ success: true, data: { status: 'ok', service: SERVICE_NAME } }));

// Nothing to validate: the response schema types the body and documents it (./health.openapi.ts).
export const handler = publicHttpHandler(routes.health, {}, getHealth);
