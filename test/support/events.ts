// The handler-testing kit is public (lib/testing); the project's own tests use it too. Imported
// from its modules rather than its index, which loads the domain modules (and with them the
// configuration) that resetContainerCaches clears: some tests set the environment first.
export { invokeRoute, parseResult, routeEvent, type EventInput, type RouteHandler } from '../../lib/testing/route-events';
export { lambdaContext } from '../../lib/local/api-gateway-event';
