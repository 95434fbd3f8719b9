/**
 * @slow CDK bundles every function, each through its own `npx esbuild` (about 30 s).
 */
import { mkdtempSync, readFileSync, readdirSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { routeEntries } from '../../lambdas/routes';
import { synthStack } from '../support/synth';

describe('function bundles, as cdk synth builds them', () => {
  const outdir = mkdtempSync(join(tmpdir(), 'cdk-out-'));
  afterAll(() => rmSync(outdir, { recursive: true, force: true }));

  it('is one minified ESM bundle with a source map per function, requiring nothing from the runtime and importing no ESM `http`', () => {
    const { app } = synthStack({}, { bundle: true, outdir });
    app.synth();
    const assets = readdirSync(outdir).filter((name) => name.startsWith('asset.') && statSync(join(outdir, name)).isDirectory());
    // One per route, the deliver consumer, the reconciler, the template sync, the webhook publisher and its consumer.
    expect(assets).toHaveLength(routeEntries.length + 6);
    // The CloudWatch client is the reconciler's alone (decision 137): its SDK package is not free of
    // side effects, so imported where every function imports it, it went into every bundle.
    const withCloudWatch = assets.filter((asset) => readFileSync(join(outdir, asset, 'index.mjs'), 'utf8').includes('"CloudWatch"'));
    expect(withCloudWatch).toHaveLength(1);
    for (const asset of assets) {
      expect(readdirSync(join(outdir, asset)).sort()).toEqual(['index.mjs', 'index.mjs.map']);
      const code = readFileSync(join(outdir, asset, 'index.mjs'), 'utf8');
      expect(code.startsWith("import { createRequire } from 'module'; const require = createRequire(import.meta.url);")).toBe(true);
      // Minified: a few long lines (newlines survive only inside template literals).
      expect(code.length / code.split('\n').length).toBeGreaterThan(2_000);
      // The AWS SDK is bundled, not taken from the Lambda runtime.
      expect(code).not.toMatch(/from\s*["']@aws-sdk\//);
      // `http` is read as CommonJS: its ESM namespace would load undici at every cold start (decision 111).
      expect(code).not.toMatch(/from\s*["'](node:)?http["']/);
    }
  }, 120_000);
});
