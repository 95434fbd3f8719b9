import { injectLambdaContext } from '@aws-lambda-powertools/logger/middleware';
import middy from '@middy/core';
import { graphCredentials } from '../domain/providers/whatsapp-credentials';
import { syncEveryWorkspace } from '../domain/templates/template-sync';
import { config } from '../shared/config';
import { logger } from '../shared/logger';
import { flushMetrics } from '../shared/metrics';

/** Runs on an EventBridge schedule: every workspace's templates from its WhatsApp Business Account. */
export const syncAllTemplates = () =>
  syncEveryWorkspace({
    graph: { baseUrl: config.GRAPH_API_BASE_URL, timeoutMs: config.PROVIDER_TIMEOUT_MS },
    accessToken: async () => (await graphCredentials()).accessToken,
  });

export const handler = middy(syncAllTemplates).use(injectLambdaContext(logger)).use(flushMetrics());
