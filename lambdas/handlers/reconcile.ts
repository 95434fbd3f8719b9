import { injectLambdaContext } from '@aws-lambda-powertools/logger/middleware';
import middy from '@middy/core';
import { dispatchQueueAge } from '../domain/delivery/queue-age';
import { reconcile } from '../domain/delivery/reconcile';
import { defaultQueue, defaultStore } from '../shared/default-store';
import { logger } from '../shared/logger';
import { flushMetrics } from '../shared/metrics';

/** Runs every minute on an EventBridge schedule. */
export const reconcileStuckDispatches = async () => {
  const now = new Date();
  const queue = defaultQueue();
  return reconcile(now, defaultStore(), queue, { queueAgeMs: await dispatchQueueAge(queue, now) });
};

export const handler = middy(reconcileStuckDispatches).use(injectLambdaContext(logger)).use(flushMetrics());
