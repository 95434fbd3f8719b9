import { Runtime } from 'aws-cdk-lib/aws-lambda';
import packageJson from '../package.json' with { type: 'json' };

/**
 * The Node major of every function and every local tool, from one place: the `node` package the
 * project installs (package.json), which bin/node-check.cjs holds every entry point to.
 */
export const NODE_MAJOR = Number(packageJson.devDependencies.node.split('.')[0]);

/** The functions' Lambda runtime for that major; synth stops if Lambda has none. */
export const LAMBDA_RUNTIME =
  Runtime.ALL.find((runtime) => runtime.name === `nodejs${NODE_MAJOR}.x`) ??
  ((): never => {
    throw new Error(`Lambda has no nodejs${NODE_MAJOR}.x runtime: pin the \`node\` devDependency to a major Lambda runs`);
  })();

/** esbuild's target for the functions' bundles. */
export const ESBUILD_TARGET = `node${NODE_MAJOR}`;
