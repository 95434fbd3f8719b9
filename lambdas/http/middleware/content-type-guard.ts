import type middy from '@middy/core';
import type { APIGatewayProxyEvent, APIGatewayProxyResult } from 'aws-lambda';
import { MEDIA_TYPES, type BodyEncoding } from '../../routes';
import { ValidationError } from '../../shared/errors';
import type { HttpContext } from './http-context';

/** Rejects a missing body or a Content-Type the route does not accept, before any parser runs. */
export function contentTypeGuard(accepted: readonly BodyEncoding[]): middy.MiddlewareObj<APIGatewayProxyEvent, APIGatewayProxyResult, Error, HttpContext> {
  const allowed = accepted.map((encoding): string => MEDIA_TYPES[encoding]);
  return {
    before: (request) => {
      const { body, headers } = request.event;
      const mediaType = (headers?.['content-type'] ?? '').split(';')[0]!.trim().toLowerCase();
      if (!allowed.includes(mediaType)) {
        throw new ValidationError(`Content-Type must be ${allowed.join(', ')}${mediaType ? `; got ${mediaType}` : ''}`);
      }
      if (body === null || body === undefined || body === '') throw new ValidationError('A request body is required');
    },
  };
}
