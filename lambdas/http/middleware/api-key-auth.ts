import type middy from '@middy/core';
import type { APIGatewayProxyEvent, APIGatewayProxyResult } from 'aws-lambda';
import { authenticate } from '../../domain/api-keys/authenticate';
import { apiKeyHeader } from '../api-key-header';
import type { Scope } from '../../shared/scopes';
import type { HttpContext } from './http-context';

/**
 * Identifies the caller from `X-API-Key` and checks the route's scope (401/403 per docs/api.md#authentication).
 * The caller's log keys are the HTTP stack's to set (`callerLogKeys`), once the check answered in
 * the request's time: a lookup that outlasts its request must not name its workspace on the
 * container's next request.
 */
export function apiKeyAuth(scope: Scope): middy.MiddlewareObj<APIGatewayProxyEvent, APIGatewayProxyResult, Error, HttpContext> {
  return {
    before: async (request) => {
      const principal = await authenticate(apiKeyHeader(request.event), scope);
      request.context.principal = principal;
    },
  };
}
