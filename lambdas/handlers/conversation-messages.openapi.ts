import type { OperationDoc } from '../http/operation-doc';
import { DISPATCH_ID } from './openapi-examples';

/** docs/openapi.json on this route, beyond its table entry and schemas (lambdas/http/operation-doc.ts). */
export const operation: OperationDoc = {
  tag: 'Conversations',
  description:
    'Messages newest first, a cursor page at a time; outbound ones carry their dispatch’s current status and when it was read. A customer’s reaction is shown on the message it reacts to, never as a message of its own.',
  errors: ['not_found'],
  examples: {
    response: {
      items: [
        {
          id: 'wamid.reply.1',
          direction: 'inbound',
          type: 'button',
          text: 'Sudah terima',
          payload: 'order-received',
          media: null,
          reaction: null,
          dispatchId: null,
          status: null,
          readAt: null,
          createdAt: '2026-11-03T02:15:04.000Z',
        },
        {
          id: DISPATCH_ID,
          direction: 'outbound',
          type: 'template',
          text: 'Halo Budi, pesanan A-1042 sudah dikirim.',
          payload: null,
          media: null,
          reaction: { emoji: '👍', reactedAt: '2026-11-03T02:15:10.000Z' },
          dispatchId: DISPATCH_ID,
          status: 'delivered',
          readAt: '2026-11-03T02:15:02.000Z',
          createdAt: '2026-11-03T02:14:00.000Z',
        },
      ],
      nextCursor: null,
    },
  },
};
