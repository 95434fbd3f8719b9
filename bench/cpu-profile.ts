import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

interface CpuProfile {
  nodes: { id: number; callFrame: { url: string; functionName: string } }[];
  samples: number[];
  timeDeltas: number[];
}

/**
 * Where sampled CPU time went: by the first area whose pattern matches `<function> <file>` of the
 * sampled frame. Idle samples (a thread waiting) are not CPU time and are left out.
 */
export function cpuShares(profileDir: string, areas: Record<string, RegExp>): Record<string, number> {
  const totals: Record<string, number> = Object.fromEntries([...Object.keys(areas), 'other'].map((name) => [name, 0]));
  let all = 0;
  for (const file of readdirSync(profileDir).filter((name) => name.endsWith('.cpuprofile'))) {
    const profile = JSON.parse(readFileSync(join(profileDir, file), 'utf8')) as CpuProfile;
    const frameOf = new Map(profile.nodes.map((node) => [node.id, `${node.callFrame.functionName} ${node.callFrame.url}`]));
    profile.samples.forEach((id, i) => {
      const time = profile.timeDeltas[i] ?? 0;
      const frame = frameOf.get(id) ?? '';
      if (frame.startsWith('(idle)')) return;
      const area = Object.entries(areas).find(([, pattern]) => pattern.test(frame))?.[0] ?? 'other';
      totals[area]! += time;
      all += time;
    });
  }
  return Object.fromEntries(Object.entries(totals).map(([name, time]) => [name, all ? time / all : 0]));
}
