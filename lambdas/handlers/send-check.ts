import * as z from '../shared/zod';
import { checkSend, sendCheckSchema } from '../domain/delivery/send-check';
import { httpHandler, type AuthorizedRequest } from '../http/http-handler';
import { ok } from '../http/responses';
import { uuid, wibDate } from '../http/schemas';
import * as routes from '../routes';

export const schemas = {
  query: z.strictObject({ phone: z.string().check(z.minLength(1), z.maxLength(64)), templateId: uuid(), date: z.optional(wibDate()) }),
  response: sendCheckSchema,
};

/** GET /v1/messages/send-check (docs/api.md#send-check). */
export const getSendCheck = async ({ principal, query }: AuthorizedRequest<typeof schemas>) => ok(await checkSend(principal.workspaceId, query));

export const handler = httpHandler(routes.sendCheck, schemas, getSendCheck);
