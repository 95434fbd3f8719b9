import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

export interface CpuProfile {
  nodes: { id: number; callFrame: { url: string; functionName: string } }[];
  /** µs on the monotonic clock. */
  startTime: number;
  samples: number[];
  timeDeltas: number[];
}

/** The `.cpuprofile` files `node --cpu-prof` wrote into a directory, read once. */
export function readProfiles(profileDir: string): CpuProfile[] {
  return readdirSync(profileDir)
    .filter((name) => name.endsWith('.cpuprofile'))
    .map((file) => JSON.parse(readFileSync(join(profileDir, file), 'utf8')) as CpuProfile);
}

/**
 * Sampled CPU time in µs, by the first area whose pattern matches `<function> <file>` of the
 * sampled frame (idle samples, a thread waiting, are not CPU time), counting only samples taken
 * inside one of `windows` (`[start, end]` in µs of the monotonic clock,
 * `process.hrtime.bigint() / 1000n`, which the profile's timestamps share): what one side of an
 * alternating comparison spent, and on what.
 */
export function cpuByArea(profiles: readonly CpuProfile[], areas: Record<string, RegExp>, windows: readonly (readonly [number, number])[]): Record<string, number> {
  const totals: Record<string, number> = Object.fromEntries([...Object.keys(areas), 'other'].map((name) => [name, 0]));
  const sorted = [...windows].sort((a, b) => a[0] - b[0]);
  for (const profile of profiles) {
    // A node's area, decided once: the patterns would otherwise run for every sample.
    const areaOf = new Map(
      profile.nodes.map((node) => {
        const frame = `${node.callFrame.functionName} ${node.callFrame.url}`;
        return [node.id, frame.startsWith('(idle)') ? undefined : (Object.entries(areas).find(([, pattern]) => pattern.test(frame))?.[0] ?? 'other')];
      }),
    );
    let at = profile.startTime;
    let next = 0;
    profile.samples.forEach((id, i) => {
      const time = profile.timeDeltas[i] ?? 0;
      at += time;
      // Samples come in time order: step past the windows that ended before this one.
      while (next < sorted.length && sorted[next]![1] < at) next++;
      if (next === sorted.length || sorted[next]![0] > at) return;
      const area = areaOf.get(id);
      if (area) totals[area]! += time;
    });
  }
  return totals;
}
