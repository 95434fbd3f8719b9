import type middy from '@middy/core';
import { getBooleanFromEnv, getStringFromEnv } from '@aws-lambda-powertools/commons/utils/env';
import { FAILURE_CODE_DIMENSION, failureCodeDimension, METRICS_SERVICE, metricNames, SKIP_REASON_DIMENSION, type WebhookSkipReason } from './metric-names';

type Unit = 'Count' | 'Milliseconds';
type Dimensions = Record<string, string>;

/**
 * Powertools Metrics' own variables, kept from when it wrote these lines, and read as Powertools
 * reads them (the logger reads its own the same way) rather than through config.ts, so a function
 * with nothing to validate, GET /health, carries no zod (row 1a of `npm run bench`). The stack
 * sets the namespace; the local runtime and the tests set `POWERTOOLS_METRICS_DISABLED=true`, so
 * their output carries no EMF.
 */
const settings = {
  namespace: getStringFromEnv({ key: 'POWERTOOLS_METRICS_NAMESPACE', defaultValue: 'MessagingApi-local' }),
  disabled: getBooleanFromEnv({ key: 'POWERTOOLS_METRICS_DISABLED', defaultValue: false }),
};

/** The dimension on every metric, as Powertools Metrics names it from the service. */
const SERVICE_DIMENSION: Dimensions = { service: METRICS_SERVICE };

/**
 * One EMF line (CloudWatch's embedded metric format) on stdout: CloudWatch Logs turns it into
 * metrics, with no API call. The same line Powertools Metrics writes, written here because that
 * is all we use of it (decision 64). Straight to stdout, so Lambda's console prefix never
 * breaks the JSON.
 */
function writeEmf(metrics: Map<string, { unit: Unit; values: number[] }>, dimensions: Dimensions): void {
  if (settings.disabled || metrics.size === 0) return;
  const line = {
    _aws: {
      Timestamp: Date.now(),
      CloudWatchMetrics: [{ Namespace: settings.namespace, Dimensions: [Object.keys(dimensions)], Metrics: [...metrics].map(([name, { unit }]) => ({ Name: name, Unit: unit })) }],
    },
    ...dimensions,
    // A metric recorded more than once in an invocation is one array of values, as EMF allows.
    ...Object.fromEntries([...metrics].map(([name, { values }]) => [name, values.length === 1 ? values[0] : values])),
  };
  process.stdout.write(`${JSON.stringify(line)}\n`);
}

/** What this invocation recorded with the service dimension alone, written as one line when it ends. */
const recorded = new Map<string, { unit: Unit; values: number[] }>();

/**
 * EMF: "Numeric array metric targets MUST NOT have more than 100 members", and CloudWatch drops a
 * line that has more, with every metric in it. A metric that reaches it is written then, with the
 * rest recorded so far, as Powertools does (one webhook POST can set aside hundreds of items).
 */
const MAX_VALUES_PER_LINE = 100;

const add = (name: string, unit: Unit, value: number) => {
  const metric = recorded.get(name);
  if (metric) metric.values.push(value);
  else recorded.set(name, { unit, values: [value] });
  if ((metric?.values.length ?? 1) >= MAX_VALUES_PER_LINE) publishMetrics();
};
const count = (name: string) => add(name, 'Count', 1);

/** A dimension applies to a whole EMF line, so a count by one more dimension is a line of its own, written at once. */
const countBy = (name: string, dimension: string, value: string) => writeEmf(new Map([[name, { unit: 'Count', values: [1] }]]), { ...SERVICE_DIMENSION, [dimension]: value });

/** Writes what the invocation recorded, if anything, and starts the next one empty. */
export function publishMetrics(): void {
  try {
    writeEmf(recorded, SERVICE_DIMENSION);
  } finally {
    recorded.clear();
  }
}

/** Middy middleware: publishes what the invocation recorded, after the handler and on error. */
export const flushMetrics = (): middy.MiddlewareObj => ({ after: publishMetrics, onError: publishMetrics });

/** What the domain records; nothing in it knows about CloudWatch. */
export interface MessageMetrics {
  queued(): void;
  sent(): void;
  delivered(): void;
  failed(failureCode: string): void;
  providerLatency(milliseconds: number): void;
  /** WhatsApp refused our access token: the attempt is held, not failed. */
  deliveryHeld(): void;
  /** The provider answered "later": retried, or failed once the dispatch's budget is spent. */
  deliveryDeferred(): void;
  /** Dispatches held back for their sending number's pace: queued again, not yet offered to the provider. */
  deliveriesPaced(count: number): void;
  /** WhatsApp took a message but holds it while it assesses the template's quality (template pacing). */
  heldForQualityAssessment(): void;
}

export const messageMetrics: MessageMetrics = {
  queued: () => count(metricNames.queued),
  sent: () => count(metricNames.sent),
  delivered: () => count(metricNames.delivered),
  failed: (failureCode) => {
    count(metricNames.failed);
    countBy(metricNames.failed, FAILURE_CODE_DIMENSION, failureCodeDimension(failureCode));
  },
  providerLatency: (milliseconds) => add(metricNames.providerLatency, 'Milliseconds', milliseconds),
  deliveryHeld: () => count(metricNames.deliveryHeld),
  deliveryDeferred: () => count(metricNames.deliveryDeferred),
  deliveriesPaced: (paced) => add(metricNames.deliveryPaced, 'Count', paced),
  heldForQualityAssessment: () => count(metricNames.heldForQualityAssessment),
};

/** What reading a webhook records. */
export interface WebhookMetrics {
  skipped(reason: WebhookSkipReason): void;
  refused(): void;
  /** WhatsApp restricted, disabled or found a violation on a business account. */
  accountRestricted(): void;
  /** WhatsApp reported an error on a number outside any message (the `messages` webhook's `errors`). */
  numberError(): void;
}

export const webhookMetrics: WebhookMetrics = {
  skipped: (reason) => {
    count(metricNames.webhookItemsSkipped);
    countBy(metricNames.webhookItemsSkipped, SKIP_REASON_DIMENSION, reason);
  },
  refused: () => count(metricNames.webhookRequestsRefused),
  accountRestricted: () => count(metricNames.accountRestricted),
  numberError: () => count(metricNames.numberErrors),
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
