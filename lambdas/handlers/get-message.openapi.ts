import type { OperationDoc } from '../http/operation-doc';
import { DEMO_TEMPLATE_ID, DISPATCH_ID } from './openapi-examples';

/** docs/openapi.json on this route, beyond its table entry and schemas (lambdas/http/operation-doc.ts). */
export const operation: OperationDoc = {
  tag: 'Messages',
  description:
    'An unknown dispatch and another workspace’s are the same 404. `queued` and `processing` may still change. `readAt` is when the recipient read it (its status stays `delivered`); `pricing` is Meta’s pricing of the message, from its status webhooks. `sequence` counts the versions of this body (1 when sent, one more with every change): a `message.status.updated` event whose `sequence` is lower than one already seen is stale.',
  errors: ['not_found'],
  examples: {
    response: {
      dispatchId: DISPATCH_ID,
      status: 'delivered',
      channel: 'whatsapp',
      to: '+6281234567890',
      templateId: DEMO_TEMPLATE_ID,
      trackingTags: ['november-promo'],
      createdAt: '2026-11-03T02:14:00.000Z',
      updatedAt: '2026-11-03T02:14:01.000Z',
      sentAt: '2026-11-03T02:14:00.412Z',
      deliveredAt: '2026-11-03T02:14:01.000Z',
      readAt: '2026-11-03T02:15:02.000Z',
      pricing: { billable: true, category: 'marketing', pricingModel: 'PMP', type: 'regular' },
      failureCode: null,
      sequence: 5,
    },
  },
};
