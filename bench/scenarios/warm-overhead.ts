import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { cpuShares } from '../cpu-profile';
import { percentile, type Row } from '../harness';

const run = promisify(execFile);
const TARGET_MS = 1;

/**
 * Row 2: the cost of a warm request for send, status read and summary, invoked in process with
 * DynamoDB and SQS answering from a recording (no I/O), so all of it is our code and the SDK's. Runs in a child process with the local
 * runtime's environment, so neither the handlers' import-time config nor the swapped network
 * touches the runtime in this process. The three operations are interleaved.
 */
export async function warmOverhead(options: { env: NodeJS.ProcessEnv; apiKey: string; dispatchId: string }): Promise<Row[]> {
  const dir = mkdtempSync(join(tmpdir(), 'bench-warm-'));
  try {
    const outFile = join(dir, 'result.json');
    // Profiled, so a miss can say where the time goes.
    await run(process.execPath, ['--cpu-prof', `--cpu-prof-dir=${dir}`, '--import', 'tsx', join(import.meta.dirname, '..', 'warm-overhead-child.ts'), outFile, options.apiKey, options.dispatchId], {
      env: { ...options.env, POWERTOOLS_LOG_LEVEL: 'SILENT', POWERTOOLS_METRICS_DISABLED: 'true' },
      maxBuffer: 64 << 20,
    });
    const result = JSON.parse(readFileSync(outFile, 'utf8')) as { samples: Record<string, number[]>; meanCpuMs: Record<string, number>; statuses: number[]; misses: number };
    const odd = result.statuses.filter((status) => status >= 300);
    const shares = cpuShares(dir, { 'AWS SDK (serialise, endpoint, sign, parse)': /node_modules\/@(aws-sdk|smithy)\//, 'our code (lambdas/)': /\/lambdas\//, 'other libraries': /node_modules\//, 'garbage collection': /^\(garbage collector\)/, 'Node.js internals': /node:|^\(program\)|^\(root\)/ });
    const where = `CPU profile of the run: ${Object.entries(shares).map(([area, share]) => `${area} ${(share * 100).toFixed(0)}%`).join(', ')}`;
    return Object.entries(result.samples).map(([name, samples], i) => {
      const p99 = percentile(samples, 99);
      return {
        id: `2${'abc'[i]}`,
        what: `warm ${name}: time per request in process, no I/O (AWS answered from a recording), ${samples.length} requests`,
        figure: `p50 ${percentile(samples, 50).toFixed(2)} ms, p99 ${p99.toFixed(2)} ms; CPU ${result.meanCpuMs[name]!.toFixed(2)} ms/request mean`,
        target: `p99 ≤ ${TARGET_MS} ms`,
        verdict: p99 <= TARGET_MS ? 'met' : 'missed',
        ...(p99 > TARGET_MS || odd.length || result.misses ? { note: [...(p99 > TARGET_MS ? [where] : []), ...(odd.length || result.misses ? [`statuses ${result.statuses.join('/')}, ${result.misses} unrecorded calls`] : [])].join('; ') } : {}),
      };
    });
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
