import { Metrics, MetricUnit } from '@aws-lambda-powertools/metrics';
import { logMetrics } from '@aws-lambda-powertools/metrics/middleware';
import { config } from './config';
import { logger } from './logger';
import { FAILURE_CODE_DIMENSION, failureCodeDimension, METRICS_SERVICE, metricNames, SKIP_REASON_DIMENSION, type WebhookSkipReason } from './metric-names';

type MetricsLogger = NonNullable<NonNullable<ConstructorParameters<typeof Metrics>[0]>['logger']>;

/**
 * Powertools warns on every flush with nothing to publish, which is most requests (only sends,
 * webhooks and the consumers record metrics): that one goes to debug, any other stays a warning.
 */
const metricsLogger: MetricsLogger = {
  debug: (message: unknown) => logger.debug(String(message)),
  info: (message: unknown) => logger.info(String(message)),
  error: (message: unknown) => logger.error(String(message)),
  warn: (message: unknown) => (String(message).startsWith('No application metrics to publish') ? logger.debug(String(message)) : logger.warn(String(message))),
};

/**
 * The container's Powertools Metrics: EMF lines on stdout that CloudWatch Logs turns into metrics,
 * with no API call. The only module that loads the metrics library; handlers flush it once per
 * invocation with `flushMetrics()`, domain code records through `messageMetrics`.
 */
export const metrics = new Metrics({ namespace: config.POWERTOOLS_METRICS_NAMESPACE, serviceName: METRICS_SERVICE, logger: metricsLogger });

/** Middy middleware: publishes what the invocation recorded, after the handler and on error. */
export const flushMetrics = () => logMetrics(metrics);

/** What the domain records; nothing in it knows about CloudWatch. */
export interface MessageMetrics {
  queued(): void;
  sent(): void;
  delivered(): void;
  failed(failureCode: string): void;
  providerLatency(milliseconds: number): void;
  /** WhatsApp refused our access token: the attempt is held, not failed. */
  deliveryHeld(): void;
}

const count = (name: string) => metrics.addMetric(name, MetricUnit.Count, 1);

export const messageMetrics: MessageMetrics = {
  queued: () => count(metricNames.queued),
  sent: () => count(metricNames.sent),
  delivered: () => count(metricNames.delivered),
  failed: (failureCode) => {
    count(metricNames.failed);
    // A dimension applies to a whole EMF line, so the per-code count is a line of its own.
    const byCode = metrics.singleMetric();
    byCode.addDimension(FAILURE_CODE_DIMENSION, failureCodeDimension(failureCode));
    byCode.addMetric(metricNames.failed, MetricUnit.Count, 1);
  },
  providerLatency: (milliseconds) => metrics.addMetric(metricNames.providerLatency, MetricUnit.Milliseconds, milliseconds),
  deliveryHeld: () => count(metricNames.deliveryHeld),
};

/** What reading a webhook records. */
export interface WebhookMetrics {
  skipped(reason: WebhookSkipReason): void;
  refused(): void;
}

export const webhookMetrics: WebhookMetrics = {
  skipped: (reason) => {
    count(metricNames.webhookItemsSkipped);
    const byReason = metrics.singleMetric();
    byReason.addDimension(SKIP_REASON_DIMENSION, reason);
    byReason.addMetric(metricNames.webhookItemsSkipped, MetricUnit.Count, 1);
  },
  refused: () => count(metricNames.webhookRequestsRefused),
};

/** What delivering webhook events to integrations records. */
export interface EventDeliveryMetrics {
  delivered(): void;
  attemptFailed(): void;
  abandoned(): void;
  endpointDisabled(): void;
}

export const eventDeliveryMetrics: EventDeliveryMetrics = {
  delivered: () => count(metricNames.eventsDelivered),
  attemptFailed: () => count(metricNames.eventAttemptsFailed),
  abandoned: () => count(metricNames.eventsAbandoned),
  endpointDisabled: () => count(metricNames.endpointsDisabled),
};
