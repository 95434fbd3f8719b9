import type { OperationDoc } from '../http/operation-doc';

/** docs/openapi.json on this route, beyond its table entry and schemas (lambdas/http/operation-doc.ts). */
export const operation: OperationDoc = {
  tag: 'Reports',
  description: 'Tracking tags used by SENT or DELIVERED dispatches in a WIB period, most used first. At most 366 days.',
  examples: { response: { items: [{ trackingTag: 'november-promo', dispatchCount: 1 }], pagination: { page: 1, limit: 50, totalItems: 1, totalPages: 1 } } },
};
