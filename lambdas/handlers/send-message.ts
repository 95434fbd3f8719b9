import { sendTemplateMessage } from '../domain/messages/send-message';
import { httpHandler, type AuthorizedRequest } from '../http/http-handler';
import { formBodyParser } from '../http/middleware/form-body-parser';
import { accepted, replayedHeader } from '../http/responses';
import { ValidationError } from '../shared/errors';
import * as routes from '../routes';
import { requestFingerprint } from '../shared/idempotency-key';
import { sendMessageAccepted, sendMessageBody, sendMessageHeaders } from './send-message.schema';
import { bodyReading } from '../http/middleware/body-reading';

export const schemas = { body: sendMessageBody, headers: sendMessageHeaders, response: sendMessageAccepted };

/** POST /v1/messages (docs/api.md#send-a-message): 202 with exactly dispatchId, status and statusUrl. */
export const sendMessage = async ({ principal, body, headers, baseUrl }: AuthorizedRequest<typeof schemas>) => {
  const { channel, content } = body;
  if (channel !== 'whatsapp' || content.type !== 'template') {
    throw new ValidationError(
      `channel "${channel}" with content type "${content.type}" is valid but not delivered; only whatsapp with template is`,
      'unsupported_channel_content',
    );
  }
  const result = await sendTemplateMessage({
    workspaceId: principal.workspaceId,
    apiClient: { id: principal.keyId, name: principal.keyName },
    to: body.to,
    ...(body.contactName !== undefined ? { contactName: body.contactName } : {}),
    templateId: content.templateId,
    variables: content.variables,
    tagIds: body.tagIds ?? [],
    trackingTags: body.trackingTags ?? [],
    idempotencyKey: headers['idempotency-key'],
    // The validated body's fingerprint is what the releases before decision 174 recorded.
    ...(headers['idempotency-key'] ? { formerFingerprint: requestFingerprint(body) } : {}),
    now: new Date(),
  });
  const statusUrl = `${baseUrl}${routes.pathOf(routes.getMessage, { dispatchId: result.dispatchId })}`;
  return accepted(
    { dispatchId: result.dispatchId, status: result.status, statusUrl },
    { Location: statusUrl, ...replayedHeader(result.replayed) },
  );
};

export const handler = httpHandler(routes.sendMessage, schemas, sendMessage, { bodyReading, formBodyParser });
