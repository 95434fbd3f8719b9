import { LogLevel, OutputFormat, type BundlingOptions } from 'aws-cdk-lib/aws-lambda-nodejs';
import { ESBUILD_TARGET } from '../node-runtime';

/**
 * Imports esbuild takes from another module than the one named, by the project root (where
 * `cdk synth` runs esbuild). `http` is read as CommonJS (lib/constructs/node-http.cjs, decision 111).
 */
const HTTP_AS_COMMONJS = './lib/constructs/node-http.cjs';
export const BUNDLING_ALIASES = { http: HTTP_AS_COMMONJS, 'node:http': HTTP_AS_COMMONJS };

/**
 * How every function is bundled: one minified ESM file per function with the AWS SDK inside
 * (pinned by our lockfile, not by whatever the runtime ships). The stack and `npm run bench`
 * both build from this, so the bundle the benchmark measures is the one that is deployed.
 */
export const FUNCTION_BUNDLING = {
  format: OutputFormat.ESM,
  target: ESBUILD_TARGET,
  platform: 'node' as const,
  minify: true,
  sourceMap: true,
  sourcesContent: false,
  mainFields: ['module', 'main'],
  externalModules: [],
  esbuildArgs: { '--alias': Object.entries(BUNDLING_ALIASES).map(([name, path]) => `${name}=${path}`) },
  // Bundled CommonJS dependencies call require(); ESM output needs one defined.
  banner: "import { createRequire } from 'module'; const require = createRequire(import.meta.url);",
  // esbuild's per-bundle size report and "Done" line are noise in every synth and test run; warnings and errors still print.
  logLevel: LogLevel.WARNING,
} satisfies BundlingOptions;

/** Node flags every function runs with (its NODE_OPTIONS). */
export const FUNCTION_NODE_OPTIONS = '--enable-source-maps';
