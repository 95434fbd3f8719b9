/**
 * A prototype, not the product: the structured logger row 1c bundles every function with in place
 * of Powertools Logger (`@aws-lambda-powertools/logger` and its `/middleware`), to measure what
 * issue 17's ×1.2 bundle target would take (docs/cost.md, "Bundles"). It covers what lambdas/ uses
 * of Powertools Logger: the four levels, `appendKeys`, `injectLambdaContext` with `resetKeys`,
 * Lambda's context fields and cold start, the X-Ray trace id, errors as `{ name, message, stack }`,
 * the level from `AWS_LAMBDA_LOG_LEVEL` or `POWERTOOLS_LOG_LEVEL`, the service from
 * `POWERTOOLS_SERVICE_NAME`, and Powertools' line shape, so the runbook's queries would still read
 * its lines.
 *
 * What it leaves out, and the stack would give up with it: sampling (`POWERTOOLS_LOGGER_SAMPLE_RATE`),
 * logging the event (`POWERTOOLS_LOGGER_LOG_EVENT`), log buffering, child loggers, custom
 * formatters and the library's upkeep by AWS. It is not tested beyond the bundles it builds.
 */
type Level = 'DEBUG' | 'INFO' | 'WARN' | 'ERROR';
const ORDER: Record<string, number> = { TRACE: 6, DEBUG: 8, INFO: 12, WARN: 16, ERROR: 20, CRITICAL: 24, SILENT: 28 };

let coldStart = true;

interface LambdaContextFields {
  functionName: string;
  functionVersion: string;
  memoryLimitInMB: string | number;
  invokedFunctionArn: string;
  awsRequestId: string;
}

export class Logger {
  private keys: Record<string, unknown> = {};
  private context: Record<string, unknown> = {};
  private readonly threshold: number;
  private readonly service: string;

  constructor(options: { serviceName?: string } = {}) {
    this.service = process.env.POWERTOOLS_SERVICE_NAME || options.serviceName || 'service_undefined';
    this.threshold = ORDER[(process.env.AWS_LAMBDA_LOG_LEVEL || process.env.POWERTOOLS_LOG_LEVEL || 'INFO').toUpperCase()] ?? ORDER.INFO!;
  }

  appendKeys(keys: Record<string, unknown>): void {
    Object.assign(this.keys, keys);
  }

  resetKeys(): void {
    this.keys = {};
  }

  addContext(context: LambdaContextFields): void {
    this.context = {
      cold_start: coldStart,
      function_arn: context.invokedFunctionArn,
      function_memory_size: Number(context.memoryLimitInMB),
      function_name: context.functionName,
      function_request_id: context.awsRequestId,
    };
    coldStart = false;
  }

  debug(message: string, ...extra: unknown[]): void {
    this.write('DEBUG', message, extra);
  }

  info(message: string, ...extra: unknown[]): void {
    this.write('INFO', message, extra);
  }

  warn(message: string, ...extra: unknown[]): void {
    this.write('WARN', message, extra);
  }

  error(message: string, ...extra: unknown[]): void {
    this.write('ERROR', message, extra);
  }

  private write(level: Level, message: string, extra: unknown[]): void {
    if (ORDER[level]! < this.threshold) return;
    const traceId = process.env._X_AMZN_TRACE_ID?.split(';')[0]?.replace('Root=', '');
    const line: Record<string, unknown> = { level, message, timestamp: new Date().toISOString(), service: this.service, ...this.context, ...(traceId ? { xray_trace_id: traceId } : {}), ...this.keys };
    for (const item of extra) {
      if (item instanceof Error) line.error = errorFields(item);
      else if (item && typeof item === 'object') for (const [key, value] of Object.entries(item)) line[key] = value instanceof Error ? errorFields(value) : value;
    }
    process.stdout.write(`${JSON.stringify(line)}\n`);
  }
}

const errorFields = (error: Error) => ({ name: error.name, message: error.message, stack: error.stack });

/** Middy middleware: the invocation's context on the logger, and its keys reset after it. */
export function injectLambdaContext(logger: Logger, options: { resetKeys?: boolean } = {}) {
  const reset = () => {
    if (options.resetKeys) logger.resetKeys();
  };
  return {
    before: (request: { context: LambdaContextFields }) => logger.addContext(request.context),
    after: reset,
    onError: reset,
  };
}
