import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';

const run = promisify(execFile);

/**
 * Runs a row's work in a process of its own (`script`, a bench file run with tsx) and answers what
 * it wrote: the plan goes in as a JSON file, the result comes back as one. The child is written
 * with `childMain`.
 */
export async function runChild<Result>(script: string, plan: unknown, env: NodeJS.ProcessEnv): Promise<Result> {
  const dir = mkdtempSync(join(tmpdir(), 'bench-child-'));
  try {
    const planFile = join(dir, 'plan.json');
    const outFile = join(dir, 'result.json');
    writeFileSync(planFile, JSON.stringify(plan));
    // The functions' log lines go to the child's stdout, which nobody reads but must hold.
    await run(process.execPath, ['--import', 'tsx', script, planFile, outFile], { env, maxBuffer: 256 << 20 });
    return JSON.parse(readFileSync(outFile, 'utf8')) as Result;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** The child's side of `runChild`: reads the plan, does the work, writes its result and exits (1, with the error, on a failure). */
export function childMain<Plan, Result>(work: (plan: Plan) => Promise<Result>): void {
  const [planFile, outFile] = process.argv.slice(2) as [string, string];
  work(JSON.parse(readFileSync(planFile, 'utf8')) as Plan).then(
    (result) => {
      writeFileSync(outFile, JSON.stringify(result));
      process.exit(0);
    },
    (error: unknown) => {
      console.error(error);
      process.exit(1);
    },
  );
}
