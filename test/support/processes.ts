import type { ChildProcess } from 'node:child_process';
import { once } from 'node:events';

/** Whether a process with this pid exists (signal 0 checks without signalling). */
export function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/**
 * Kills `parent` outright (as `kill -9` or a crash would end it) and waits up to `withinMs` for the
 * process it started, `pid`, to end on its own: whether it did.
 */
export async function childEndsWithParent(parent: ChildProcess, pid: number, withinMs = 10_000): Promise<boolean> {
  parent.kill('SIGKILL');
  await once(parent, 'exit');
  const deadline = Date.now() + withinMs;
  while (isAlive(pid) && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 50));
  return !isAlive(pid);
}
