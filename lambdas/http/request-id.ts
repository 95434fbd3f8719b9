import type { APIGatewayProxyEvent } from 'aws-lambda';

/** API Gateway's request id: what clients quote, and what every log line of the request carries. */
export const requestIdOf = (event: APIGatewayProxyEvent, context: { awsRequestId: string }): string =>
  event.requestContext?.requestId ?? context.awsRequestId;
