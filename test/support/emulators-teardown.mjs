export default async function teardown() {
  const state = globalThis.__messagingEmulators;
  if (!state) return;
  state.users -= 1;
  if (state.users > 0) return;
  await state.sqs?.stop();
  if (state.java && state.java.exitCode === null) {
    const exited = new Promise((resolve) => state.java.once('exit', resolve));
    state.java.kill('SIGTERM');
    await exited;
  }
  globalThis.__messagingEmulators = undefined;
}
