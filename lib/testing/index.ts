/**
 * The testing kit for developers who test the handlers (README, "Invoking a handler in a unit
 * test"): API Gateway events built from the route table (and the usage-plan authorizer's), routes
 * invoked as Lambda invokes them (streamed ones too), a function URL's event (the webhook's front door with
 * webhookFrontDoor=functionUrl), SQS events for the deliver consumer, a Lambda context, the stored
 * items a send and a status webhook read (API key, workspace, template, number owner), signed
 * webhook bodies, and a reset of every per-container cache between tests.
 *
 * Importing it imports the modules whose caches it resets, and they read the configuration
 * (lambdas/shared/config.ts) once, as a cold start does: set the environment a test needs before
 * importing the kit or a handler. The README section also says what a test needs besides the kit:
 * the jest settings Middy needs, which AWS clients to mock, the variables by route, how to build
 * mocked AWS errors.
 */
export { invokeRoute, parseResult, routeEvent, type EventInput, type ParsedResult, type RouteHandler } from './route-events';
export { encodeBody, encodings, type Encoding } from './request-bodies';
export { authorizerEvent } from './authorizer-events';
export { functionUrlEvent, type FunctionUrlRequest } from '../local/function-url-event';
export { sqsEvent, type SqsRecordInput } from './sqs-events';
export { containerCaches, resetContainerCaches } from './container-caches';
export { apiKeyItem, TEST_WORKSPACE_ID } from './api-key-item';
export {
  dispatchMessage,
  itemsByKey,
  numberOwnerItem,
  sendingNumber,
  signWhatsAppBody,
  templateItem,
  whatsAppStatusBody,
  workspaceItem,
  type SendMessageAccepted,
  type SendMessageRequest,
} from './send-items';
export { lambdaContext } from '../local/api-gateway-event';
