export default async function teardown() {
  const state = globalThis.__messagingEmulators;
  if (!state) return;
  state.users -= 1;
  if (state.users > 0) return;
  await state.sqs?.stop();
  await state.dynamodb?.stop();
  globalThis.__messagingEmulators = undefined;
}
