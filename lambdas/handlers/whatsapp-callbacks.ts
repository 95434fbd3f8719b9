import { isUtf8 } from 'node:buffer';
import type { APIGatewayProxyEvent, APIGatewayProxyResult, Context, LambdaFunctionURLEvent } from 'aws-lambda';
import { apiGatewayEvent } from '../http/rest-proxy-event';
import { JSON_CONTENT_TYPE } from '../http/responses';
import { errorBody, errorCodes } from '../shared/errors';
import * as routes from '../routes';
import { handler as receive } from './whatsapp-webhook';
import { handler as verify } from './whatsapp-webhook-verify';

type RestHandler = (event: APIGatewayProxyEvent, context: Context) => Promise<APIGatewayProxyResult>;

/** A function URL has one address for every method, where WhatsApp's two routes are one path with two methods. */
const byMethod: Record<string, { route: { path: string }; handle: RestHandler }> = {
  [routes.whatsappWebhookVerify.method]: { route: routes.whatsappWebhookVerify, handle: verify },
  [routes.whatsappWebhook.method]: { route: routes.whatsappWebhook, handle: receive },
};

/**
 * WhatsApp's callbacks on a Lambda function URL (`webhookFrontDoor=functionUrl`, docs/deploy.md):
 * no price per request, where API Gateway's is most of what a callback costs. The URL hands over
 * payload 2.0; this turns it into the REST proxy event the two webhook handlers read, with the body
 * exactly as received (the signature is checked on it), and answers any other method or path as the
 * REST API does: 404 in the contract's error body.
 */
export const handler = async (event: LambdaFunctionURLEvent, context: Context): Promise<APIGatewayProxyResult> => {
  const { method, sourceIp } = event.requestContext.http;
  const target = byMethod[method];
  if (!target || event.rawPath.replace(/(.)\/$/, '$1') !== target.route.path) return notFound(method, event.rawPath, event.requestContext.requestId);
  const body = event.body === undefined ? undefined : event.isBase64Encoded ? Buffer.from(event.body, 'base64') : event.body;
  const restEvent = apiGatewayEvent({
    method,
    path: event.rawPath,
    resource: target.route.path,
    headers: Object.entries(event.headers ?? {}).filter((header): header is [string, string] => header[1] !== undefined),
    // From the raw string, so a repeated parameter stays repeated (the URL's own map joins them with commas).
    query: [...new URLSearchParams(event.rawQueryString)],
    ...(body !== undefined ? { body } : {}),
    sourceIp,
    requestId: event.requestContext.requestId,
  });
  // Bytes that are not UTF-8 stay bytes, for the signature to be checked on: read as text they
  // would be U+FFFD, another body than the one sent.
  const bytes = body instanceof Buffer && !restEvent.isBase64Encoded && !isUtf8(body);
  return target.handle(bytes ? { ...restEvent, body: body.toString('base64'), isBase64Encoded: true } : restEvent, context);
};

function notFound(method: string, path: string, requestId: string): APIGatewayProxyResult {
  return {
    statusCode: errorCodes.not_found,
    headers: { 'content-type': JSON_CONTENT_TYPE, 'x-request-id': requestId },
    body: JSON.stringify(errorBody('not_found', `No route matches ${method} ${path}`, requestId)),
  };
}
