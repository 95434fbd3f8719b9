// fauxqs, the SQS emulator, in this process and reachable from this machine only. Shared by the
// local runtime (lib/local/sqs-emulator.ts) and the test run's global setup, which jest loads as
// plain ESM: fauxqs is ESM-only. `startFauxqs` listens on every interface, so the app is built
// and bound to 127.0.0.1 here instead.

/** fauxqs loads node:sqlite (for persistence we do not use), and Node 22 warns that it is experimental. */
async function importFauxqs() {
  const emitWarning = process.emitWarning;
  process.emitWarning = (warning, ...rest) => {
    if (!String(warning).startsWith('SQLite is an experimental feature')) emitWarning.call(process, warning, ...rest);
  };
  try {
    return await import('fauxqs');
  } finally {
    process.emitWarning = emitWarning;
  }
}

/** Starts an emulator on a free loopback port; `endpoint` is its URL. */
export async function startLoopbackSqs() {
  const { buildApp } = await importFauxqs();
  const app = buildApp({ logger: false });
  const endpoint = await app.listen({ port: 0, host: '127.0.0.1' });
  return { endpoint, stop: () => app.close() };
}
