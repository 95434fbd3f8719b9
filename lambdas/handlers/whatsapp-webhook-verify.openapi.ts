import type { OperationDoc } from '../http/operation-doc';

/** docs/openapi.json on this route, beyond its table entry and schemas (lambdas/http/operation-doc.ts). */
export const operation: OperationDoc = {
  tag: 'Webhooks',
  description: 'Meta’s subscription handshake: answers `hub.challenge` as plain text when `hub.verify_token` matches. Called by Meta, not by integrations.',
  successMediaType: 'text/plain',
  errors: ['forbidden'],
  examples: { response: '1158201444' },
};
