import type { OperationDoc } from '../http/operation-doc';
import { DISPATCH_ID } from './openapi-examples';

/** docs/openapi.json on this route, beyond its table entry and schemas (lambdas/http/operation-doc.ts). */
export const operation: OperationDoc = {
  tag: 'Conversations',
  description: 'Messages newest first, a cursor page at a time; outbound ones carry their dispatch’s current status.',
  errors: ['not_found'],
  examples: {
    response: {
      items: [
        { id: 'wamid.reply.1', direction: 'inbound', type: 'text', text: 'Terima kasih!', dispatchId: null, status: null, createdAt: '2026-11-03T02:15:04.120Z' },
        {
          id: DISPATCH_ID,
          direction: 'outbound',
          type: 'template',
          text: 'Halo Budi, pesanan A-1042 sudah dikirim.',
          dispatchId: DISPATCH_ID,
          status: 'delivered',
          createdAt: '2026-11-03T02:14:00.000Z',
        },
      ],
      nextCursor: null,
    },
  },
};
