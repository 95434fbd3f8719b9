import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { join } from 'node:path';
import { childEndsWithParent, isAlive } from '../../support/processes';

/**
 * `npm start` runs the runtime under `sh -c`: a signal to npm's own process ends npm and the shell,
 * not the runtime, which then holds the port and DynamoDB Local until someone finds it. The runtime
 * watches its parent and stops when it is gone.
 */

/** A process under `sh -c` (as npm runs the runtime) that begins to watch its parent after `watchAfterMs`, and exits when it is gone. */
async function watcherUnderShell(watchAfterMs: number) {
  const watcher = `import(${JSON.stringify(join(process.cwd(), 'lib/local/parent-watch.ts'))}).then(({ whenParentGone }) => {
    console.log(process.pid);
    setTimeout(() => whenParentGone(() => process.exit(0), 50), ${watchAfterMs});
    setInterval(() => undefined, 1_000);
  });`;
  // `; true` keeps the shell as the watcher's parent rather than replaced by it, as npm's `sh -c` does.
  const shell = spawn('sh', ['-c', `"${process.execPath}" --import tsx -e '${watcher}'; true`], { stdio: ['ignore', 'pipe', 'inherit'] });
  const [line] = (await once(shell.stdout, 'data')) as [Buffer];
  return { shell, watcherPid: Number(line.toString().trim()) };
}

it('calls back once the process that started this one has ended, and not before', async () => {
  const { shell, watcherPid } = await watcherUnderShell(0);
  try {
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(isAlive(watcherPid)).toBe(true);
    expect(await childEndsWithParent(shell, watcherPid)).toBe(true);
  } finally {
    if (isAlive(watcherPid)) process.kill(watcherPid, 'SIGKILL');
  }
}, 30_000);

it('calls back too when the parent ended while this one was still starting, before it began to watch', async () => {
  // The runtime watches once it is ready, seconds after it began (DynamoDB Local starts first); npm
  // stopped in those seconds has handed it to init by then, so the parent is the one it began with.
  const { shell, watcherPid } = await watcherUnderShell(1_500);
  try {
    expect(await childEndsWithParent(shell, watcherPid)).toBe(true);
  } finally {
    if (isAlive(watcherPid)) process.kill(watcherPid, 'SIGKILL');
  }
}, 30_000);
