import { publicHttpHandler, type HttpRequest } from '../http/http-handler';
import { ok } from '../http/responses';
import { routes } from '../routes';

export const SERVICE_NAME = 'messaging-api-external';

/** GET /health (public-api.md §4.1): no key, exactly this body. */
export const getHealth = (_request: HttpRequest) => Promise.resolve(ok({ success: true, data: { status: 'ok', service: SERVICE_NAME } }));

export const handler = publicHttpHandler(routes.health, {}, getHealth);
