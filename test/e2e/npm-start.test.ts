/**
 * @slow runs `npm start` as a newcomer does: its own DynamoDB Local and runtime (about 20 s).
 */
import { spawn, spawnSync, execFileSync } from 'node:child_process';
import { join } from 'node:path';
import { createServer, type AddressInfo } from 'node:net';
import { PROJECT_ROOT } from '../../lib/project-paths';
import { stateFilePath } from '../../lib/local/paths';
import { existsSync, readFileSync } from 'node:fs';

const freePort = () =>
  new Promise<number>((resolve) => {
    const server = createServer().listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
/** `<pgid> <pid> <args>` of each process in the group. */
const processesInGroup = (groupId: number) =>
  execFileSync('ps', ['-eo', 'pgid=,pid=,args='], { encoding: 'utf8' })
    .split('\n')
    .filter((line) => line.trim().split(/\s+/)[0] === String(groupId));

/**
 * `npm start` as a newcomer runs it, in its own process: the entry point, its module loading (the
 * other e2e tests load the runtime inside jest, which resolves packages its own way), DynamoDB
 * Local's JVM and the clean stop.
 */
describe('npm start, as its own process', () => {
  it('answers /health once ready, serves the demo seed, and leaves no process after SIGTERM', async () => {
    const port = await freePort();
    // Only what a shell has: none of this test run's emulator endpoints or table names.
    const child = spawn('npm', ['start'], { cwd: PROJECT_ROOT, detached: true, stdio: ['ignore', 'pipe', 'pipe'], env: { PATH: process.env.PATH, HOME: process.env.HOME, PORT: String(port) } });
    let output = '';
    child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
    try {
      let health: Response | undefined;
      for (const deadline = Date.now() + 60_000; !health && Date.now() < deadline && child.exitCode === null; ) {
        health = await fetch(`http://127.0.0.1:${port}/health`).catch(() => undefined);
        if (!health) await new Promise((resolve) => setTimeout(resolve, 300));
      }
      expect({ status: health?.status, output: health ? '' : output }).toEqual({ status: 200, output: '' });
      const templates = await fetch(`http://127.0.0.1:${port}/v1/message-templates`, { headers: { 'X-API-Key': 'msk_local_demo_0001' } });
      expect(templates.status).toBe(200);
      expect(((await templates.json()) as { items: { id: string }[] }).items.map((item) => item.id)).toEqual(['7b0c5c3e-0000-4000-8000-000000000001']);
      // The admin CLI's `--local --port` finds the runtime by this file.
      expect(JSON.parse(readFileSync(stateFilePath(port), 'utf8'))).toMatchObject({ url: `http://127.0.0.1:${port}` });
    } finally {
      // The signal reaches the group while the runtime cannot run for a moment, as on a busy
      // machine: a parent that relays signals (tsx's CLI) killed it outright (SIGKILL) after 60 ms,
      // with no clean stop.
      const runtimeProcess = Number(processesInGroup(child.pid!).filter((line) => line.includes('bin/local.ts') && !/\d+\s+(npm|sh)\b/.test(line)).at(-1)?.trim().split(/\s+/)[1]);
      if (runtimeProcess) process.kill(runtimeProcess, 'SIGSTOP');
      process.kill(-child.pid!, 'SIGTERM');
      await new Promise((resolve) => setTimeout(resolve, 300));
      try {
        if (runtimeProcess) process.kill(runtimeProcess, 'SIGCONT');
      } catch {
        // Killed while it could not run: the checks below say what was missed.
      }
    }
    // npm itself ends by the signal; the runtime, DynamoDB Local and the emulator stop on their own.
    // The pipes close once the last process holding them has ended and its last lines have been
    // read: waiting for a process list to empty raced those lines.
    if (child.stdout.readable || child.stderr.readable) await new Promise((resolve) => { child.on('close', resolve); setTimeout(resolve, 10_000).unref(); });
    let left = processesInGroup(child.pid!);
    for (const deadline = Date.now() + 5_000; left.length && Date.now() < deadline; left = processesInGroup(child.pid!)) await new Promise((resolve) => setTimeout(resolve, 200));
    expect(left).toEqual([]);
    // A clean stop, by the signal or by its parent's end, whichever the runtime meets first once it runs again.
    expect(output).toMatch(/(SIGTERM|npm start ended): stopping…/);
    expect(existsSync(stateFilePath(port))).toBe(false);
  }, 90_000);
});

describe('npm start, given a setting it cannot use', () => {
  // bin/local.ts as `npm start` runs it, with only what a shell has and the one setting.
  const start = (env: Record<string, string>) =>
    spawnSync(process.execPath, ['--import', 'tsx', join(PROJECT_ROOT, 'bin', 'local.ts')], { cwd: PROJECT_ROOT, encoding: 'utf8', env: { PATH: process.env.PATH, HOME: process.env.HOME, ...env }, timeout: 30_000 });

  it.each([
    [{ PORT: 'abc' }, 'npm start: PORT: a port number from 0 to 65535'],
    [{ PORT: '70000' }, 'npm start: PORT: a port number from 0 to 65535'],
    [{ MESSAGING_SEED: '/nonexistent/seed.json' }, "npm start: Cannot read the seed file /nonexistent/seed.json: ENOENT: no such file or directory, open '/nonexistent/seed.json'"],
  ])('%j stops it before anything starts, with one line naming it', (env, line) => {
    const run = start(env);
    expect([run.status, run.stdout, run.stderr.trimEnd().split('\n')]).toEqual([1, '', [line]]);
  });
  // The design's default port, 3000, is often another runtime's: it fails before DynamoDB Local starts, not with a stack trace after.
  it('stops it before anything starts when PORT is in use, with one line naming it', async () => {
    const holder = createServer();
    await new Promise<void>((resolve) => holder.listen(0, '127.0.0.1', resolve));
    const { port } = holder.address() as AddressInfo;
    try {
      const run = start({ PORT: String(port) });
      expect([run.status, run.stdout, run.stderr.trimEnd().split('\n')]).toEqual([1, '', [`npm start: PORT ${port} is in use on 127.0.0.1: stop what holds it, or set PORT to another port`]]);
    } finally {
      await new Promise((resolve) => holder.close(resolve));
    }
  });
});
