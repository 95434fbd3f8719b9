import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { cpuByArea, readProfiles } from '../cpu-profile';
import { percentile, ratioNumbers, verdictOf, type Row } from '../harness';

const run = promisify(execFile);
/** A warm route may spend this many times the CPU of an SDK-only handler making its calls. */
const TARGET_RATIO = 1.3;

interface Side {
  samples: number[];
  /** When each request ran: `[start, end]` in µs of the monotonic clock. */
  windows: [number, number][];
  meanCpuMs: number;
}

/**
 * Row 2's prototype (rows 2d–2f): the same routes with `@middy/core` and Powertools Logger resolved
 * to bench/prototypes/thin-middy.ts and small-logger.ts, everything else the stack's. What the two
 * libraries cost a warm request, and whether the routes would meet ×1.3 without them.
 */
const THIN_STACK = join(import.meta.dirname, '..', 'prototypes', 'thin-stack.mjs');

/**
 * Row 2: the CPU of a warm request for send, status read and summary, invoked in process with
 * DynamoDB and SQS answering from a recording (no I/O), against an SDK-only handler that makes
 * the same calls on the same clients against the same recording, requests alternating. Runs in a
 * child process with the local runtime's environment, so neither the handlers' import-time config
 * nor the swapped network touches the runtime in this process. Then again in a second child with
 * the thin-stack prototype, held against its own baseline measured in that child.
 */
export async function warmOverhead(options: { env: NodeJS.ProcessEnv; apiKey: string; dispatchId: string }): Promise<Row[]> {
  return [
    ...(await measure(options, { ids: 'abc', imports: [], what: 'warm' })),
    ...(await measure(options, {
      ids: 'def',
      imports: ['--import', THIN_STACK],
      // Middy's streaming mode is kept: the thin runner hands it the streamed summary's requests.
      replaced: /node_modules\/(@middy\/core\/(?!executionModeStreamifyResponse\.js)|@aws-lambda-powertools\/logger\/)/,
      what: 'PROTOTYPE, not the stack: row 2 with Middy’s core and Powertools Logger replaced by bench/prototypes/thin-middy.ts and small-logger.ts; warm',
    })),
  ];
}

async function measure(options: { env: NodeJS.ProcessEnv; apiKey: string; dispatchId: string }, variant: { ids: string; imports: string[]; what: string; replaced?: RegExp }): Promise<Row[]> {
  const dir = mkdtempSync(join(tmpdir(), 'bench-warm-'));
  try {
    const outFile = join(dir, 'result.json');
    // Profiled, so a miss can say where the time goes.
    await run(process.execPath, ['--cpu-prof', `--cpu-prof-dir=${dir}`, '--import', 'tsx', ...variant.imports, join(import.meta.dirname, '..', 'warm-overhead-child.ts'), outFile, options.apiKey, options.dispatchId], {
      env: { ...options.env, POWERTOOLS_LOG_LEVEL: 'SILENT', POWERTOOLS_METRICS_DISABLED: 'true' },
      maxBuffer: 64 << 20,
    });
    const result = JSON.parse(readFileSync(outFile, 'utf8')) as { route: Record<string, Side>; baseline: Record<string, Side>; calls: Record<string, string[]>; statuses: number[]; misses: number };
    const odd = result.statuses.filter((status) => status >= 300);
    const areas = {
      'AWS SDK (serialise, endpoint, sign, parse)': /node_modules\/@(aws-sdk|smithy)\//,
      'our code (lambdas/)': /\/lambdas\//,
      Middy: /node_modules\/@middy\//,
      zod: /node_modules\/zod\//,
      'Powertools logger': /node_modules\/@aws-lambda-powertools\//,
      'the prototypes (bench/prototypes/)': /\/bench\/prototypes\//,
      'other libraries': /node_modules\//,
      'garbage collection': /^\(garbage collector\)/,
      'Node.js internals': /node:|^\(program\)|^\(root\)/,
      // A frame with no file is V8's own: JSON, RegExp, Promise and Map built-ins.
      'V8 built-ins (JSON, RegExp, Promise…)': /\s$/,
    };
    // Each side's samples, told apart by when its requests ran: what a route spends beyond its
    // baseline, and on what, per request.
    const profiles = readProfiles(dir);
    if (variant.replaced) {
      // A prototype row stands only if the libraries it replaces never ran and the prototypes did.
      const files = profiles.flatMap((profile) => profile.nodes.map((node) => node.callFrame.url));
      if (files.some((file) => variant.replaced!.test(file)) || !files.some((file) => file.includes('/bench/prototypes/'))) {
        throw new Error(`Row 2${variant.ids}: the prototype did not replace what it names`);
      }
    }
    const beyond = (name: string) => {
      const perRequest = (side: Side) => Object.entries(cpuByArea(profiles, areas, side.windows)).map(([area, us]) => [area, us / side.samples.length / 1000] as const);
      const baseline = new Map(perRequest(result.baseline[name]!));
      const extra = perRequest(result.route[name]!)
        .map(([area, ms]) => [area, ms - (baseline.get(area) ?? 0)] as const)
        .filter(([, ms]) => Math.abs(ms) >= 0.005)
        .sort((a, b) => b[1] - a[1]);
      return `beyond the baseline, sampled CPU per request: ${extra.map(([area, ms]) => `${area} ${ms >= 0 ? '+' : '−'}${Math.abs(ms).toFixed(3)} ms`).join(', ')}`;
    };
    return Object.entries(result.route).map(([name, own], i) => {
      const baseline = result.baseline[name]!;
      const numbers = ratioNumbers('ms CPU per request', own.meanCpuMs, baseline.meanCpuMs, TARGET_RATIO);
      const ratio = numbers.ratio!;
      const calls = result.calls[name]!.join(' + ') || 'no calls';
      const elapsed = (side: Side) => `p50 ${percentile(side.samples, 50).toFixed(2)}, p99 ${percentile(side.samples, 99).toFixed(2)} ms`;
      const verdict = verdictOf(numbers);
      const notes = [...(verdict === 'missed' ? [beyond(name)] : []), ...(odd.length || result.misses ? [`statuses ${result.statuses.join('/')}, ${result.misses} unrecorded calls`] : [])];
      return {
        id: `2${variant.ids[i]}`,
        what: `${variant.what} ${name}: CPU per request in process, no I/O (AWS answered from a recording), ${own.samples.length} requests, vs an SDK-only handler making its calls (${calls})`,
        figure: `${own.meanCpuMs.toFixed(2)} ms vs ${baseline.meanCpuMs.toFixed(2)} ms (×${ratio.toFixed(2)}); elapsed ${elapsed(own)} vs ${elapsed(baseline)}`,
        target: `≤ ×${TARGET_RATIO}`,
        verdict,
        ...(notes.length ? { note: notes.join('; ') } : {}),
        numbers,
      } satisfies Row;
    });
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
