import { injectLambdaContext } from '@aws-lambda-powertools/logger/middleware';
import middy from '@middy/core';
import type { APIGatewayAuthorizerResult, APIGatewayRequestAuthorizerEvent } from 'aws-lambda';
import { usageIdentityOf } from '../domain/api-keys/usage-identity';
import { apiKeyHeader } from '../http/api-key-header';
import { config } from '../shared/config';
import { UnauthorizedError } from '../shared/errors';
import { logger } from '../shared/logger';

/**
 * The REQUEST authorizer of every authenticated route on a stack with usage plans (decision 69).
 * It tells API Gateway which usage key a request counts against; the route's function still
 * authenticates the key and checks its scope itself, so answers stay the contract's.
 *
 * API Gateway caches the answer by the X-API-Key value (lib/constructs/usage-plans.ts) and uses it
 * for every route, so it allows the whole stage and never looks at the route's scope.
 */
export async function authorizeUsage(event: APIGatewayRequestAuthorizerEvent): Promise<APIGatewayAuthorizerResult> {
  try {
    const { principal, usageKey, shared } = await usageIdentityOf(apiKeyHeader(event), { fallbackKey: config.FALLBACK_USAGE_KEY });
    return {
      principalId: principal.keyId,
      usageIdentifierKey: usageKey,
      policyDocument: { Version: '2012-10-17', Statement: [{ Action: 'execute-api:Invoke', Effect: 'Allow', Resource: wholeStage(event.methodArn) }] },
      // Read by the access log ($context.authorizer.*), so each line names who called.
      context: { workspaceId: principal.workspaceId, apiKeyId: principal.keyId, usageKey: shared ? 'fallback' : 'own' },
    };
  } catch (error) {
    // The one answer API Gateway turns into 401 (gateway response UNAUTHORIZED, the contract body).
    if (error instanceof UnauthorizedError) throw new Error('Unauthorized');
    // Anything else is ours (the table unreachable, a wiring fault): API Gateway answers 503.
    logger.error('Usage-plan authorizer failed', { error });
    throw error;
  }
}

/** `arn:…:apiId/stage/GET/v1/messages` → `arn:…:apiId/stage/*`: the cached answer serves every route. */
function wholeStage(methodArn: string): string {
  const [api, stage] = methodArn.split('/');
  return `${api}/${stage}/*`;
}

// Its event carries the X-API-Key header: never logged, whatever POWERTOOLS_LOGGER_LOG_EVENT says (decision 38).
export const handler = middy(authorizeUsage).use(injectLambdaContext(logger, { logEvent: false }));
