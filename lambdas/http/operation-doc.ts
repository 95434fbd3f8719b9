import type { ErrorCode } from '../shared/errors';

export type OperationTag = 'Health' | 'Messages' | 'Reports' | 'Templates' | 'Conversations' | 'Webhook endpoints' | 'Webhooks';

/**
 * What docs/openapi.json says about a route beyond its table entry and its schemas: prose, the
 * errors its domain raises, and examples (docs/api.md). Each route keeps its
 * own next to its handler (`<handler>.openapi.ts`), which only the generator (lib/openapi) imports,
 * so none of it reaches a function bundle. Errors every route of its kind can return
 * (authentication, validation, limits, the gateway's own) are derived, not listed.
 */
export interface OperationDoc {
  tag: OperationTag;
  description?: string;
  /** The success status, when not 200 (204 answers no body). */
  successStatus?: 201 | 202 | 204;
  /** The success body's media type, when it is not JSON (the webhook handshake echoes plain text). */
  successMediaType?: 'text/plain';
  /** Errors this operation's handler or domain raises itself. */
  errors?: readonly ErrorCode[];
  examples?: {
    request?: Record<string, unknown>;
    /** The success body. */
    response?: unknown;
  };
}
