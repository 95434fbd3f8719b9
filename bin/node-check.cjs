// Every tool of this project runs on the Node major the deployed functions run on: the `node`
// package in package.json's devDependencies, which `npm ci` installs into node_modules/.bin, where
// npm scripts and npx find it before the machine's own Node. Entry points (CDK app, local runtime,
// admin CLI, benchmarks, jest) load this first; on another major they stop here with one line.
// CommonJS on purpose: it must run, and say what to do, on whatever Node started it.
'use strict';
const { devDependencies } = require('../package.json');

const wanted = devDependencies.node.split('.')[0];
const running = process.versions.node.split('.')[0];
if (running !== wanted) {
  process.stderr.write(
    `messaging-api runs on Node ${wanted} (the Lambda runtime), not ${process.version}: run \`npm ci\` (without --ignore-scripts) to install it into node_modules/.bin, then start tools through npm (npm start, npm test, npm run …, npx cdk …).\n`,
  );
  process.exit(1);
}
