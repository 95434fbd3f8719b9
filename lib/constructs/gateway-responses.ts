import { ResponseType, type RestApi } from 'aws-cdk-lib/aws-apigateway';
import { errorCodes, type ErrorCode } from '../../lambdas/shared/errors';

/**
 * Errors API Gateway answers itself, before any function runs, mapped to the contract's codes.
 * `status` overrides API Gateway's own where it misleads the client: an unknown path or method
 * is reported by API Gateway as 403 "Missing Authentication Token"; we answer 404. `message`
 * replaces API Gateway's own words where they would not tell the client what to do.
 */
interface GatewayError {
  type: ResponseType;
  code: ErrorCode;
  status?: number;
  message?: string;
  headers?: Record<string, string>;
}

const responses: GatewayError[] = [
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

/**
 * What the usage-plan authorizer and the plans add (lib/constructs/usage-plans.ts), replacing the
 * entries above of the same type. The authorizer refuses only keys every route answers 401; a
 * missing header is refused by API Gateway before it runs. Its failure, and a usage key no plan
 * holds (a workspace moving between plans), are ours and brief: 503 with `Retry-After`, as the
 * functions answer an unavailable table. API Gateway reports the authorizer throwing anything but
 * "Unauthorized", timing out or being throttled as AUTHORIZER_CONFIGURATION_ERROR, and names
 * AUTHORIZER_FAILURE too; both are answered alike (decision 221). The per-second throttle refills
 * each second; a quota renews at the start of its period, a time API Gateway gives the response
 * no variable for.
 */
const unavailable = { code: 'service_unavailable', status: 503, message: 'A service this API depends on is briefly unavailable; retry the request', headers: { 'Retry-After': '1' } } as const;
const usagePlanResponses: GatewayError[] = [
  { type: ResponseType.UNAUTHORIZED, code: 'unauthorized', status: 401, message: 'A valid API key is required in the X-API-Key header' },
  { type: ResponseType.AUTHORIZER_CONFIGURATION_ERROR, ...unavailable },
  { type: ResponseType.AUTHORIZER_FAILURE, ...unavailable },
  { type: ResponseType.INVALID_API_KEY, ...unavailable },
  { type: ResponseType.THROTTLED, code: 'rate_limited', status: 429, message: 'Too many requests: the API\'s or this workspace\'s usage plan\'s rate limit is reached; retry in 1 s', headers: { 'Retry-After': '1' } },
  { type: ResponseType.QUOTA_EXCEEDED, code: 'rate_limited', status: 429, message: 'Request quota of this workspace\'s usage plan used up for this period; it renews at the start of the next one (UTC)' },
];

/** `$context.error.messageString` is already a quoted, escaped JSON string. */
const template = (code: ErrorCode, message?: string) =>
  `{"success":false,"error":"${code}","message":${message === undefined ? '$context.error.messageString' : JSON.stringify(message)},"requestId":"$context.requestId"}`;

export function addGatewayResponses(api: RestApi, options: { usagePlans: boolean }): void {
  const added = options.usagePlans ? usagePlanResponses : [];
  const all = [...responses.filter(({ type }) => !added.some((replacement) => replacement.type === type)), ...added];
  for (const { type, code, status, message, headers = {} } of all) {
    // Codes here must exist in the error table; keep the two in step.
    if (!(code in errorCodes)) throw new Error(`Unknown error code ${code}`);
    api.addGatewayResponse(`Gateway${type.responseType}`, {
      type,
      ...(status ? { statusCode: String(status) } : {}),
      // Static header values are quoted, as in any API Gateway mapping.
      responseHeaders: { 'x-request-id': 'context.requestId', ...Object.fromEntries(Object.entries(headers).map(([name, value]) => [name, `'${value}'`])) },
      templates: { 'application/json': template(code, message) },
    });
  }
}
