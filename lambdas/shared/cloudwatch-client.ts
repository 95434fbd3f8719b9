import { CloudWatchClient } from '@aws-sdk/client-cloudwatch';
import { config } from './config';
import { withoutCallLog } from './store';

/**
 * How long a CloudWatch call may take: it answers in milliseconds, and without a bound a stalled
 * one held the reconciler until its function's 60 s ended, reconciling nothing that run. Past
 * these the call fails (the SDK tries it three times) and the reconciler carries on without the
 * queue's age, as it did before it asked (decision 137).
 */
export const CLOUDWATCH_CALL_TIMEOUTS = { connectionTimeout: 1_000, requestTimeout: 2_000, throwOnRequestTimeout: true } as const;

/**
 * CloudWatch, for the dispatch queue's own metrics (the reconciler reads how long its oldest
 * message has waited, decision 137). A module of its own, not in clients.ts: the SDK package is
 * not free of side effects, so importing it there put it in every function's bundle.
 */
export const cloudwatch = withoutCallLog(new CloudWatchClient({ region: config.AWS_REGION, requestHandler: CLOUDWATCH_CALL_TIMEOUTS }));
