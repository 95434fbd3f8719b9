import type { OperationDoc } from '../http/operation-doc';
import { pathOf, routes } from '../routes';
import { DEMO_TEMPLATE_ID, DISPATCH_ID } from './openapi-examples';

/** docs/openapi.json on this route, beyond its table entry and schemas (lambdas/http/operation-doc.ts). */
export const operation: OperationDoc = {
  tag: 'Messages',
  description:
    'Queues a message and answers at once; delivery happens afterwards. Only `channel=whatsapp` with `content.type=template` is delivered: ' +
    'the other variants are valid in shape and rejected with 422 `unsupported_channel_content`. Form bodies use bracket notation ' +
    '(`content[type]=template&content[variables][name]=Budi&trackingTags[]=promo`). With an `Idempotency-Key`, a repeat of the same request ' +
    'within 24 h returns the original 202 body with `Idempotent-Replayed: true`; the same key with another body is 409. ' +
    'A MARKETING template to a number that opted out of the workspace’s marketing messages (a “Stop promotions” tap) is 422 `recipient_opted_out`.',
  successStatus: 202,
  errors: ['idempotency_conflict', 'duplicate_send', 'unsupported_channel_content', 'template_not_found', 'template_not_ready', 'missing_variables', 'recipient_opted_out', 'rate_limited', 'upstream_unavailable'],
  examples: {
    request: {
      channel: 'whatsapp',
      to: '081234567890',
      contactName: 'Budi',
      content: { type: 'template', templateId: DEMO_TEMPLATE_ID, variables: { name: 'Budi', order: 'A-1042' } },
      trackingTags: ['november-promo'],
    },
    response: { dispatchId: DISPATCH_ID, status: 'queued', statusUrl: `http://127.0.0.1:3000${pathOf(routes.getMessage, { dispatchId: DISPATCH_ID })}` },
  },
};
