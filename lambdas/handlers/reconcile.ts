import { injectLambdaContext } from '@aws-lambda-powertools/logger/middleware';
import middy from '@middy/core';
import { reconcile } from '../domain/delivery/reconcile';
import { logger } from '../shared/logger';
import { flushMetrics } from '../shared/metrics';

/** Runs every minute on an EventBridge schedule. */
export const reconcileStuckDispatches = () => reconcile(new Date());

export const handler = middy(reconcileStuckDispatches).use(injectLambdaContext(logger)).use(flushMetrics());
