import { spawnSync } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { FUNCTION_BUNDLING } from '../../../lib/constructs/bundling';
import { ESBUILD_TARGET, LAMBDA_RUNTIME, NODE_MAJOR } from '../../../lib/node-runtime';
import packageJson from '../../../package.json';

const ROOT = join(__dirname, '..', '..', '..');
/** Runs bin/node-check.cjs in a fresh process of this Node that reports `version` as its own. */
const checkAs = (version: string) =>
  spawnSync(
    process.execPath,
    ['-e', `Object.defineProperty(process, 'versions', { value: { ...process.versions, node: '${version}' } }); Object.defineProperty(process, 'version', { value: 'v${version}' }); require('./bin/node-check.cjs');`],
    { cwd: ROOT, encoding: 'utf8' },
  );

describe('one Node everywhere', () => {
  it('runs these tests, bundles and deploys on the major the `node` devDependency pins', () => {
    expect(NODE_MAJOR).toBe(Number(packageJson.devDependencies.node.split('.')[0]));
    expect(process.versions.node.split('.')[0]).toBe(String(NODE_MAJOR));
    expect(LAMBDA_RUNTIME.name).toBe(`nodejs${NODE_MAJOR}.x`);
    expect(FUNCTION_BUNDLING.target).toBe(ESBUILD_TARGET);
    expect(ESBUILD_TARGET).toBe(`node${NODE_MAJOR}`);
  });

  it('lets an entry point start on that major, silently', () => {
    const run = checkAs(`${NODE_MAJOR}.0.0`);
    expect([run.status, run.stdout, run.stderr]).toEqual([0, '', '']);
  });

  it('stops an entry point on any other major with one line saying what to do', () => {
    const run = checkAs('20.20.2');
    expect(run.status).toBe(1);
    expect(run.stdout).toBe('');
    expect(run.stderr.trimEnd().split('\n')).toEqual([expect.stringContaining(`runs on Node ${NODE_MAJOR} (the Lambda runtime), not v20.20.2: run \`npm ci\``)]);
  });
});

describe('one copy of each shared runtime library', () => {
  /** Every installed copy of `name`, however deep in node_modules, by version. */
  const installedVersions = (name: string) =>
    readdirSync(join(ROOT, 'node_modules'), { recursive: true, encoding: 'utf8' })
      .filter((path) => path.endsWith(`${name}/package.json`) && !path.slice(0, -`${name}/package.json`.length).includes('/test/'))
      .map((path) => (JSON.parse(readFileSync(join(ROOT, 'node_modules', path), 'utf8')) as { name: string; version: string }))
      .filter((pkg) => pkg.name === name)
      .map((pkg) => pkg.version);

  // Two copies would both land in a bundle: the Powertools packages share their core, the SDK clients theirs.
  it.each(['@aws-lambda-powertools/commons', '@aws-sdk/core'])('installs %s once', (name) => {
    expect(installedVersions(name)).toHaveLength(1);
  });
});
