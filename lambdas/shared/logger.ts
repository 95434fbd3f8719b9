import { Logger } from '@aws-lambda-powertools/logger';

/** One structured JSON logger per container; the service name comes from POWERTOOLS_SERVICE_NAME. */
export const logger = new Logger({ serviceName: 'messaging-api' });
