/**
 * The parent as this module is loaded, as the process starts: the runtime watches only once it is
 * ready, seconds later, and a parent that ended in between has handed it to init already.
 */
const STARTED_BY = process.ppid;

/**
 * Calls `onGone` once the process that started this one has ended: this one is then handed to init
 * (or a subreaper), so its parent's pid changes. `npm start` runs the runtime under `sh -c`, and a
 * signal sent to npm's own process (`kill <pid>`, systemd's `KillMode=process`) ends
 * npm and that shell without reaching the runtime, which would keep the port and DynamoDB Local's
 * JVM. DynamoDB Local ends with its starter the same way (dynamodb-loopback.cjs, `endWithParent`).
 * The check never keeps the process alive; the returned function stops it.
 */
export function whenParentGone(onGone: () => void, everyMs = 500): () => void {
  const timer = setInterval(() => {
    if (process.ppid === STARTED_BY) return;
    clearInterval(timer);
    onGone();
  }, everyMs);
  timer.unref();
  return () => clearInterval(timer);
}
