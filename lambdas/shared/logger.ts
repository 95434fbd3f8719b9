import { Logger } from '@aws-lambda-powertools/logger';
import { METRICS_SERVICE } from './metric-names';

/** One structured JSON logger per container; the service name comes from POWERTOOLS_SERVICE_NAME, which the stack sets to the same. */
export const logger = new Logger({ serviceName: METRICS_SERVICE });
