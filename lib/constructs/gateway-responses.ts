import { ResponseType, type RestApi } from 'aws-cdk-lib/aws-apigateway';
import { errorCodes, type ErrorCode } from '../../lambdas/shared/errors';

/**
 * Errors API Gateway answers itself, before any function runs, mapped to the contract's codes.
 * `status` overrides API Gateway's own where it misleads the client: an unknown path or method
 * is reported by API Gateway as 403 "Missing Authentication Token"; we answer 404.
 */
const responses: { type: ResponseType; code: ErrorCode; status?: number }[] = [
  { type: ResponseType.MISSING_AUTHENTICATION_TOKEN, code: 'not_found', status: 404 },
  { type: ResponseType.RESOURCE_NOT_FOUND, code: 'not_found', status: 404 },
  { type: ResponseType.THROTTLED, code: 'rate_limited', status: 429 },
  { type: ResponseType.QUOTA_EXCEEDED, code: 'rate_limited', status: 429 },
  { type: ResponseType.REQUEST_TOO_LARGE, code: 'payload_too_large', status: 413 },
  { type: ResponseType.UNSUPPORTED_MEDIA_TYPE, code: 'validation_failed', status: 422 },
  { type: ResponseType.BAD_REQUEST_BODY, code: 'validation_failed', status: 422 },
  { type: ResponseType.BAD_REQUEST_PARAMETERS, code: 'validation_failed', status: 422 },
  { type: ResponseType.ACCESS_DENIED, code: 'forbidden' },
  { type: ResponseType.WAF_FILTERED, code: 'forbidden' },
  { type: ResponseType.INTEGRATION_TIMEOUT, code: 'upstream_timeout', status: 504 },
  { type: ResponseType.INTEGRATION_FAILURE, code: 'internal_error', status: 502 },
  { type: ResponseType.DEFAULT_4XX, code: 'bad_request' },
  { type: ResponseType.DEFAULT_5XX, code: 'internal_error' },
];

/** `$context.error.messageString` is already a quoted, escaped JSON string. */
const template = (code: ErrorCode) =>
  `{"success":false,"error":"${code}","message":$context.error.messageString,"requestId":"$context.requestId"}`;

export function addGatewayResponses(api: RestApi): void {
  for (const { type, code, status } of responses) {
    // Codes here must exist in the error table; keep the two in step.
    if (!(code in errorCodes)) throw new Error(`Unknown error code ${code}`);
    api.addGatewayResponse(`Gateway${type.responseType}`, {
      type,
      ...(status ? { statusCode: String(status) } : {}),
      responseHeaders: { 'x-request-id': 'context.requestId' },
      templates: { 'application/json': template(code) },
    });
  }
}
