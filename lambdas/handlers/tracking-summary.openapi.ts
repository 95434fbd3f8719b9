import type { OperationDoc } from '../http/operation-doc';
import { DEMO_TEMPLATE_ID, reportHead } from './openapi-examples';

/** docs/openapi.json on this route, beyond its table entry and schemas (lambdas/http/operation-doc.ts). */
export const operation: OperationDoc = {
  tag: 'Reports',
  description: 'Per requested tag (repeat `trackingTags`), SENT or DELIVERED dispatches, credits and rupiah, and the same per template. `page` and `limit` page the tag rows.',
  examples: {
    response: {
      ...reportHead,
      items: [
        {
          trackingTag: 'november-promo',
          dispatchCount: 1,
          credits: 2,
          amountRupiah: 300,
          templates: [{ templateId: DEMO_TEMPLATE_ID, templateName: 'Order shipped', dispatchCount: 1, credits: 2, amountRupiah: 300 }],
        },
        { trackingTag: 'vip', dispatchCount: 0, credits: 0, amountRupiah: 0, templates: [] },
      ],
    },
  },
};
