import type { OperationDoc } from '../http/operation-doc';
import { DISPATCH_ID } from './openapi-examples';

/** docs/openapi.json on this route, beyond its table entry and schemas (lambdas/http/operation-doc.ts). */
export const operation: OperationDoc = {
  tag: 'Messages',
  description: 'Delivery events per phone number in a WIB period, oldest first; each phone comes back as it was given.',
  examples: {
    request: { phones: ['081234567890'], startDate: '2026-11-01', endDate: '2026-11-30' },
    response: {
      items: [
        {
          phone: '081234567890',
          events: [
            { dispatchId: DISPATCH_ID, status: 'ACCEPTED', occurredAt: '2026-11-03T02:14:00.412Z' },
            { dispatchId: DISPATCH_ID, status: 'DELIVERED', occurredAt: '2026-11-03T02:14:01.000Z' },
          ],
        },
      ],
    },
  },
};
