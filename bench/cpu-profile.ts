import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

interface CpuProfile {
  nodes: { id: number; callFrame: { url: string; functionName: string } }[];
  /** µs on the monotonic clock. */
  startTime: number;
  samples: number[];
  timeDeltas: number[];
}

/**
 * Sampled CPU time in µs, by the first area whose pattern matches `<function> <file>` of the
 * sampled frame (idle samples, a thread waiting, are not CPU time). With `windows` (`[start, end]`
 * in µs of the monotonic clock, `process.hrtime.bigint() / 1000n`, which the profile's timestamps
 * share), only samples taken inside one of them: what one side of an alternating comparison
 * spent, and on what.
 */
export function cpuByArea(profileDir: string, areas: Record<string, RegExp>, windows?: readonly (readonly [number, number])[]): Record<string, number> {
  const totals: Record<string, number> = Object.fromEntries([...Object.keys(areas), 'other'].map((name) => [name, 0]));
  const sorted = windows && [...windows].sort((a, b) => a[0] - b[0]);
  for (const file of readdirSync(profileDir).filter((name) => name.endsWith('.cpuprofile'))) {
    const profile = JSON.parse(readFileSync(join(profileDir, file), 'utf8')) as CpuProfile;
    const frameOf = new Map(profile.nodes.map((node) => [node.id, `${node.callFrame.functionName} ${node.callFrame.url}`]));
    let at = profile.startTime;
    let next = 0;
    profile.samples.forEach((id, i) => {
      const time = profile.timeDeltas[i] ?? 0;
      at += time;
      if (sorted) {
        // Samples come in time order: step past the windows that ended before this one.
        while (next < sorted.length && sorted[next]![1] < at) next++;
        if (next === sorted.length || sorted[next]![0] > at) return;
      }
      const frame = frameOf.get(id) ?? '';
      if (frame.startsWith('(idle)')) return;
      const area = Object.entries(areas).find(([, pattern]) => pattern.test(frame))?.[0] ?? 'other';
      totals[area]! += time;
    });
  }
  return totals;
}
