// Import this module first in a test file: lambdas/shared/config.ts reads whether to write
// metrics when it is first imported, and test/support/env.ts switches them off.
process.env.POWERTOOLS_METRICS_DISABLED = 'false';

import { isDeepStrictEqual } from 'node:util';

/** One metric as CloudWatch would read it from an EMF line. */
export interface EmittedMetric {
  namespace: string;
  name: string;
  unit: string;
  dimensions: Record<string, string>;
  /** One value, or every value recorded for the metric in that invocation. */
  values: number[];
}

interface EmfLine {
  _aws: { CloudWatchMetrics: { Namespace: string; Dimensions: string[][]; Metrics: { Name: string; Unit: string }[] }[] };
  [key: string]: unknown;
}

/**
 * Captures the EMF lines the functions write to stdout (what CloudWatch Logs turns into metrics),
 * letting any other output through. `emitted()` reads them back, one entry per metric and
 * dimension set.
 */
export function captureMetrics() {
  const lines: EmfLine[] = [];
  const write = process.stdout.write.bind(process.stdout);
  const spy = jest.spyOn(process.stdout, 'write').mockImplementation((chunk: string | Uint8Array, ...rest: unknown[]) => {
    const text = String(chunk);
    if (!text.startsWith('{"_aws"')) return (write as (...args: unknown[]) => boolean)(chunk, ...rest);
    lines.push(JSON.parse(text) as EmfLine);
    return true;
  });

  const emitted = (): EmittedMetric[] =>
    lines.flatMap((line) =>
      line._aws.CloudWatchMetrics.flatMap(({ Namespace, Dimensions, Metrics }) =>
        Metrics.flatMap(({ Name, Unit }) =>
          Dimensions.map((set) => ({
            namespace: Namespace,
            name: Name,
            unit: Unit,
            dimensions: Object.fromEntries(set.map((key) => [key, String(line[key])])),
            values: [line[Name] as number | number[]].flat(),
          })),
        ),
      ),
    );

  return {
    emitted,
    /** Total of a metric's values, optionally only on a given dimension set. */
    sum: (name: string, dimensions?: Record<string, string>) =>
      emitted()
        .filter((metric) => metric.name === name && (!dimensions || isDeepStrictEqual(metric.dimensions, dimensions)))
        .reduce((total, metric) => total + metric.values.reduce((a, b) => a + b, 0), 0),
    clear: () => void lines.splice(0),
    restore: () => spy.mockRestore(),
  };
}
