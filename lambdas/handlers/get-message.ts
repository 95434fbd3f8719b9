import * as z from '../shared/zod';
import { messageStatusSchema, toMessageStatusResource } from '../domain/messages/dispatch';
import { getDispatchStatus } from '../domain/messages/message-status-read';
import { httpHandler, type AuthorizedRequest } from '../http/http-handler';
import { ok } from '../http/responses';
import { uuid } from '../http/schemas';
import { NotFoundError } from '../shared/errors';
import * as routes from '../routes';

export const schemas = { path: z.object({ dispatchId: uuid() }), response: messageStatusSchema };

/** GET /v1/messages/{dispatchId} (docs/api.md#message-status). */
export const getMessageStatus = async ({ principal, path }: AuthorizedRequest<typeof schemas>) => {
  const dispatch = await getDispatchStatus(principal.workspaceId, path.dispatchId);
  if (!dispatch) throw new NotFoundError('Message');
  return ok(toMessageStatusResource(dispatch));
};

export const handler = httpHandler(routes.getMessage, schemas, getMessageStatus);
