import httpJsonBodyParser from '@middy/http-json-body-parser';
import type { RouteDefinition } from '../../routes';
import type { Middleware } from '../http-stack';
import { bodyLimits } from './body-limits';
import { contentTypeGuard } from './content-type-guard';

/**
 * The middlewares that read a route's body, in order: the Content-Type guard, the size and depth
 * limits (not on a signed route, whose body is the provider's, proven by its signature), and
 * Middy's JSON parser. A route with a body passes this to its handler (`bodyReading`), as the send
 * passes its form parser, so the routes without one (`/health`, the reads) do not carry them: about
 * 2 KB of every such bundle (bench row 1a).
 */
export function bodyReading(route: Pick<RouteDefinition, 'signed'> & { body: NonNullable<RouteDefinition['body']> }): Middleware[] {
  return [
    contentTypeGuard(route.body),
    ...(route.signed ? [] : [bodyLimits()]),
    ...(route.body.includes('json') ? [httpJsonBodyParser({ disableContentTypeError: true }) as Middleware] : []),
  ];
}
