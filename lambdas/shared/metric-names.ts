/**
 * The business metrics' names and dimensions: one place for what the functions emit
 * (lambdas/shared/metrics.ts) and what the dashboard reads (lib/constructs/monitoring.ts).
 * No Powertools here, so the CDK app can import it without loading the metrics library.
 */
export const metricNames = {
  /** A send accepted (202) and its message on the dispatch queue. Replays are not counted. */
  queued: 'MessagesQueued',
  /** A dispatch that first counts as sent (or is delivered without a sent report), once each. */
  sent: 'MessagesSent',
  delivered: 'MessagesDelivered',
  /** Every failure; also emitted with the FailureCode dimension. */
  failed: 'MessagesFailed',
  /** Milliseconds one provider call took, whatever its verdict. */
  providerLatency: 'ProviderLatency',
  /** A webhook item (change, status, message, contact) read and set aside; also emitted with the SkipReason dimension. */
  webhookItemsSkipped: 'WebhookItemsSkipped',
  /** A WhatsApp webhook POST refused whole: a signature that does not match, or a body that is not Meta's envelope. */
  webhookRequestsRefused: 'WebhookRequestsRefused',
  /** WhatsApp's `account_update` restricting, disabling or finding a policy violation on a business account (decision 142). */
  accountRestricted: 'WhatsAppAccountRestricted',
  /**
   * An error WhatsApp reported on a number outside any message: a `messages` webhook's `errors`, a
   * request it could not process for a system, app or account level problem (decision 149).
   */
  numberErrors: 'WhatsAppNumberErrors',
  /** A delivery attempt held because WhatsApp refused the access token (error 190 and its kin). */
  deliveryHeld: 'DeliveriesHeld',
  /**
   * The provider answered "later" (a rate limit, a fault of its own): the attempt is retried, and
   * the dispatch's fifth such answer fails it (`retries_exhausted`, decision 132).
   */
  deliveryDeferred: 'DeliveriesDeferred',
  /**
   * A dispatch held back by its sending number's pace (`whatsappMessagesPerSecond`) before any
   * provider call: queued again for a later second, nothing spent of its retry budget.
   */
  deliveryPaced: 'DeliveriesPaced',
  /**
   * WhatsApp took a template message but holds it (`held_for_quality_assessment`: template pacing,
   * decision 148); it counts as sent, and is released within the hour or dropped with a 132015 failure.
   */
  heldForQualityAssessment: 'MessagesHeldForQualityAssessment',
  /** An event posted to an integration's endpoint and answered 2xx. */
  eventsDelivered: 'WebhookEventsDelivered',
  /** One POST to an endpoint that was not answered 2xx (it is retried on the schedule). */
  eventAttemptsFailed: 'WebhookAttemptsFailed',
  /** An event given up for an endpoint: its last attempt failed, or the receiver answered 410. */
  eventsAbandoned: 'WebhookEventsAbandoned',
  /** An endpoint disabled by delivery: the receiver answered 410, or it kept failing for days. */
  endpointsDisabled: 'WebhookEndpointsDisabled',
} as const;

/** The service's name: Powertools' `service` on every log line and metric dimension (POWERTOOLS_SERVICE_NAME), and the stack's `service` tag. */
export const METRICS_SERVICE = 'messaging-api';
export const FAILURE_CODE_DIMENSION = 'FailureCode';
export const SKIP_REASON_DIMENSION = 'SkipReason';

/**
 * Why a webhook item was set aside: each a SkipReason value. `unknown_*` and `malformed_*` are
 * what we do not understand (a new status value, message type, field or shape); the rest are
 * items we understand that name nothing of ours (docs/operations.md#webhook-items-skipped).
 */
export const webhookSkipReasons = [
  'unknown_field',
  'malformed_change',
  'unknown_status',
  'malformed_status',
  'unknown_message_type',
  'malformed_message',
  'malformed_contact',
  'unknown_preference',
  'malformed_preference',
  'unowned_number',
  'foreign_dispatch',
  'unknown_message_id',
  'group_message',
  'customer_message_changed',
] as const;
export type WebhookSkipReason = (typeof webhookSkipReasons)[number];

/**
 * Failure codes that get their own FailureCode value; any other is `other`. Every distinct value
 * is a CloudWatch metric of its own (and a cost), and WhatsApp has hundreds of codes, so only those
 * an operator acts on differently are named. The exact code is always on the dispatch and in the logs.
 */
export const reportedFailureCodes = [
  'enqueue_failed', // our queue refused the message (send answered 502)
  'retries_exhausted', // the provider answered "later" five times (decision 132)
  'no_phone_number_id', // workspace on WhatsApp without a sending number
  '131026', // undeliverable: not on WhatsApp, old app, or blocked
  '131047', // outside the 24-hour window
  '131049', // Meta's per-user marketing limit
  '132000', // template parameter count mismatch
  '132001', // template does not exist in that language
  '132015', // template paused for low quality
  '132016', // template disabled
  '131042', // business payment problem
  '131031', // business account locked
  '190', // access token expired or revoked
  '368', // temporarily blocked for policy violations
  '131045', // the number's registration is broken (incorrect certificate)
  '133010', // the number is not registered on the Cloud API
  '131037', // the number's display name is not approved yet
] as const;

/**
 * Failure codes by which WhatsApp refuses the sender (its business account or number), not the
 * message: every send from it fails alike until someone fixes the payment method, the lock, the
 * policy block or the number's registration. One pages (alarm `whatsapp-sender-refused`, decision
 * 153); the dispatches still fail, for integrations to fall back or send again once it is fixed.
 */
export const senderRefusalCodes = [
  '131042', // no valid payment method on the account (card expired, credit line spent)
  '131031', // the business account is locked
  '368', // the business account is blocked for policy violations
  '131045',
  '133010',
  '131037',
] as const satisfies readonly (typeof reportedFailureCodes)[number][];

export const isSenderRefusal = (failureCode: string): boolean => (senderRefusalCodes as readonly string[]).includes(failureCode);

export type FailureCodeDimension = (typeof reportedFailureCodes)[number] | 'other';

export function failureCodeDimension(failureCode: string): FailureCodeDimension {
  const code = failureCode.startsWith('retries_exhausted:') ? 'retries_exhausted' : failureCode;
  return (reportedFailureCodes as readonly string[]).includes(code) ? (code as FailureCodeDimension) : 'other';
}
