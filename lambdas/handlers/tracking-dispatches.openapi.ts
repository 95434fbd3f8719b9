import type { OperationDoc } from '../http/operation-doc';
import { DEMO_TEMPLATE_ID, DISPATCH_ID, API_KEY_ID, reportHead } from './openapi-examples';

/** docs/openapi.json on this route, beyond its table entry and schemas (lambdas/http/operation-doc.ts). */
export const operation: OperationDoc = {
  tag: 'Reports',
  description:
    'SENT or DELIVERED dispatches, newest first, selected either by `trackingTags` (repeated) with `match` ANY (the default) or ALL, or by ' +
    '`scope=WORKSPACE` without tags or match; neither or both is 422. The response is streamed, so `limit` may be 100000.',
  examples: {
    response: {
      ...reportHead,
      items: [
        {
          dispatchId: DISPATCH_ID,
          recipientPhone: '+6281234567890',
          templateId: DEMO_TEMPLATE_ID,
          templateName: 'Order shipped',
          source: 'EXTERNAL_API',
          apiClient: { id: API_KEY_ID, name: 'demo' },
          status: 'DELIVERED',
          trackingTags: ['november-promo'],
          creditCost: 2,
          amountRupiah: 300,
          createdAt: '2026-11-03T02:14:00.000Z',
          sentAt: '2026-11-03T02:14:00.412Z',
          deliveredAt: '2026-11-03T02:14:01.000Z',
        },
      ],
      pagination: { page: 1, limit: 50, totalItems: 1, totalPages: 1 },
    },
  },
};
