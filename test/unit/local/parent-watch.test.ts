import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { join } from 'node:path';

/**
 * `npm start` runs the runtime under `sh -c`: a signal to npm's own process ends npm and the shell,
 * not the runtime, which then holds the port and DynamoDB Local until someone finds it. The runtime
 * watches its parent and stops when it is gone.
 */
const alive = (pid: number) => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

it('calls back once the process that started this one has ended, and not before', async () => {
  const watcher = `import(${JSON.stringify(join(process.cwd(), 'lib/local/parent-watch.ts'))}).then(({ whenParentGone }) => {
    whenParentGone(() => process.exit(0), 50);
    console.log(process.pid);
    setInterval(() => undefined, 1_000);
  });`;
  // `; true` keeps the shell as the watcher's parent rather than replaced by it, as npm's `sh -c` does.
  const shell = spawn('sh', ['-c', `"${process.execPath}" --import tsx -e '${watcher}'; true`], { stdio: ['ignore', 'pipe', 'inherit'] });
  const [line] = (await once(shell.stdout, 'data')) as [Buffer];
  const watcherPid = Number(line.toString().trim());
  try {
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(alive(watcherPid)).toBe(true);

    shell.kill('SIGKILL');
    await once(shell, 'exit');
    const deadline = Date.now() + 10_000;
    while (alive(watcherPid) && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 50));
    expect(alive(watcherPid)).toBe(false);
  } finally {
    if (alive(watcherPid)) process.kill(watcherPid, 'SIGKILL');
  }
}, 30_000);
