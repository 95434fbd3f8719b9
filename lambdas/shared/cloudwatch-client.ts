import { CloudWatchClient } from '@aws-sdk/client-cloudwatch';
import { config } from './config';
import { withoutCallLog } from './store';

/**
 * CloudWatch, for the dispatch queue's own metrics (the reconciler reads how long its oldest
 * message has waited, decision 137). A module of its own, not in clients.ts: the SDK package is
 * not free of side effects, so importing it there put it in every function's bundle.
 */
export const cloudwatch = withoutCallLog(new CloudWatchClient({ region: config.AWS_REGION }));
