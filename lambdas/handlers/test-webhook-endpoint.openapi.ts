import type { OperationDoc } from '../http/operation-doc';

/** docs/openapi.json on this route, beyond its table entry and schemas (lambdas/http/operation-doc.ts). */
export const operation: OperationDoc = {
  tag: 'Webhook endpoints',
  description:
    'Sends a `webhook.test` event to this endpoint alone, whatever types it takes, signed and retried like any event; its outcome shows in the deliveries. ' +
    'A disabled endpoint is refused (422) until re-enabled.',
  successStatus: 202,
  errors: ['not_found'],
  examples: { response: { eventId: 'evt_019aa0c4d2000123456789abcdef' } },
};
