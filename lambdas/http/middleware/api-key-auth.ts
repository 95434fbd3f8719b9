import type middy from '@middy/core';
import type { APIGatewayProxyEvent, APIGatewayProxyResult } from 'aws-lambda';
import { authenticate } from '../../domain/api-keys/authenticate';
import { logger } from '../../shared/logger';
import type { Scope } from '../../shared/scopes';
import type { HttpContext } from './http-context';

/** Identifies the caller from `X-API-Key` and checks the route's scope (401/403 per docs/api.md#authentication). */
export function apiKeyAuth(scope: Scope): middy.MiddlewareObj<APIGatewayProxyEvent, APIGatewayProxyResult, Error, HttpContext> {
  return {
    before: async (request) => {
      // Headers are lower-cased by the header normaliser that runs first.
      const principal = await authenticate(request.event.headers?.['x-api-key'], scope);
      request.context.principal = principal;
      logger.appendKeys({ workspaceId: principal.workspaceId, apiKeyId: principal.keyId });
    },
  };
}
