import type { OperationDoc } from '../http/operation-doc';

/** docs/openapi.json on this route, beyond its table entry and schemas (lambdas/http/operation-doc.ts). */
export const operation: OperationDoc = {
  tag: 'Webhook endpoints',
  description:
    'What became of each event at this endpoint, newest event first, a cursor page at a time: its attempts, the last answer and the next try. ' +
    'Records are kept 14 days after an event’s last attempt. An unknown endpoint and another workspace’s are the same 404.',
  errors: ['not_found'],
  examples: {
    response: {
      items: [
        {
          eventId: 'evt_019aa0c4d2000123456789abcdef',
          type: 'message.status.updated',
          state: 'retrying',
          attempts: 3,
          lastAttemptAt: '2026-11-20T08:02:35.000Z',
          lastStatusCode: 503,
          lastError: null,
          nextAttemptAt: '2026-11-20T08:12:35.000Z',
        },
      ],
      nextCursor: null,
    },
  },
};
