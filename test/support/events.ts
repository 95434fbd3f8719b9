// The handler-testing kit is public (lib/testing); the project's own tests use it too.
export { invokeRoute, lambdaContext, parseResult, routeEvent, type EventInput, type RouteHandler } from '../../lib/testing';
