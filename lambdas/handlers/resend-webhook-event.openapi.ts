import type { OperationDoc } from '../http/operation-doc';

/** docs/openapi.json on this route, beyond its table entry and schemas (lambdas/http/operation-doc.ts). */
export const operation: OperationDoc = {
  tag: 'Webhook endpoints',
  description:
    'Delivers the event to this endpoint again, from a first attempt and with its retries, under the same `webhook-id` and body. ' +
    'The event must be in the endpoint’s deliveries; a disabled endpoint is refused (422) until re-enabled.',
  successStatus: 202,
  errors: ['not_found'],
  examples: { response: { eventId: 'evt_019aa0c4d2000123456789abcdef' } },
};
