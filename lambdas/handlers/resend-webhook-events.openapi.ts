import type { OperationDoc } from '../http/operation-doc';

/** docs/openapi.json on this route, beyond its table entry and schemas (lambdas/http/operation-doc.ts). */
export const operation: OperationDoc = {
  tag: 'Webhook endpoints',
  description:
    'Delivers again every event in the endpoint’s deliveries made at or after `since`, delivered or not, oldest first, at most 500 a call: ' +
    'when there were more, `nextSince` is the `since` of the next call. A call never ends inside a millisecond: one that holds more than 500 events goes whole in one call. ' +
    'A disabled endpoint is refused (422) until re-enabled.',
  successStatus: 202,
  errors: ['not_found'],
  examples: { request: { since: '2026-11-20T00:00:00Z' }, response: { resent: 42, nextSince: null } },
};
