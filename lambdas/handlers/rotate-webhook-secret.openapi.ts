import type { OperationDoc } from '../http/operation-doc';

/** docs/openapi.json on this route, beyond its table entry and schemas (lambdas/http/operation-doc.ts). */
export const operation: OperationDoc = {
  tag: 'Webhook endpoints',
  description:
    'Gives the endpoint a new signing secret, shown in this answer only. Until `previousSecretExpiresAt` each event carries a signature under ' +
    'both secrets (space-separated in `webhook-signature`), so a receiver can switch without losing events. Send `{}` for the default overlap of 24 h. ' +
    'An earlier rotation’s secret still in its overlap signs until `previousSecretExpiresAt` at the latest, so `overlapSeconds: 0` leaves the new secret alone. ' +
    'An endpoint keeps at most three secrets: a new rotation drops the oldest still in its overlap. An unknown endpoint and another workspace’s are the same 404. ' +
    'With an `Idempotency-Key`, tries of the same rotation rotate once, and a repeat within 24 h returns the first answer with `Idempotent-Replayed: true`; ' +
    'the same key with another endpoint or overlap is 409 `idempotency_conflict`.',
  errors: ['not_found', 'idempotency_conflict'],
  examples: {
    request: { overlapSeconds: 3600 },
    response: { secret: 'whsec_3xk9pL0vQm2sR7tY1uW4zA6bC8dE0fG2hJ4kL6mN8pQ=', previousSecretExpiresAt: '2026-11-05T10:30:00.000Z' },
  },
};
