import type { APIGatewayRequestAuthorizerEvent } from 'aws-lambda';
import type { RouteId } from '../../lambdas/routes';
import { routeEvent, type EventInput } from './route-events';

/**
 * The event API Gateway sends a REQUEST authorizer (the usage-plan authorizer) for a request to
 * `routeId`: the request's headers, query and path parameters and the method's ARN, no body.
 */
export function authorizerEvent(routeId: RouteId, input: Omit<EventInput, 'body'> = {}): APIGatewayRequestAuthorizerEvent {
  const request = routeEvent(routeId, input);
  const { requestContext } = request;
  return {
    type: 'REQUEST',
    methodArn: `arn:aws:execute-api:ap-southeast-3:123456789012:abc123/${requestContext.stage}/${request.httpMethod}${request.path}`,
    resource: request.resource,
    path: request.path,
    httpMethod: request.httpMethod,
    headers: request.headers,
    multiValueHeaders: request.multiValueHeaders,
    pathParameters: request.pathParameters,
    queryStringParameters: request.queryStringParameters,
    multiValueQueryStringParameters: request.multiValueQueryStringParameters,
    stageVariables: request.stageVariables,
    // An authorizer runs before any authorizer context exists.
    requestContext: { ...requestContext, authorizer: undefined, accountId: '123456789012', apiId: 'abc123' },
  };
}
