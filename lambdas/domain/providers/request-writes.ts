import { AsyncLocalStorage } from 'node:async_hooks';
import { subscribe } from 'node:diagnostics_channel';

/**
 * What became of a request made with Node's `fetch`, as its HTTP client (undici) tells through
 * its diagnostics channels: `made` once the client took it, `written` once its headers went to a
 * socket. A request that was made and never written cannot have reached the other side, however
 * its failure reads (a connect that hung until our timeout, a DNS answer that never came); one
 * that was written may have, whatever the error (decision 215). A `fetch` that is not undici's (a
 * test's stand-in) tells nothing: `made` stays false.
 */
export interface RequestWrites {
  made: boolean;
  written: boolean;
}

const current = new AsyncLocalStorage<RequestWrites>();
// The client's request objects, to the watch of the call that made each: the headers are written
// later, on the connection's own turn, where the call's async context is no longer current.
const watched = new WeakMap<object, RequestWrites>();
let subscribed = false;

function subscribeOnce(): void {
  if (subscribed) return;
  subscribed = true;
  subscribe('undici:request:create', (message) => {
    const watch = current.getStore();
    if (!watch) return;
    watch.made = true;
    watched.set((message as { request: object }).request, watch);
  });
  subscribe('undici:client:sendHeaders', (message) => {
    const watch = watched.get((message as { request: object }).request);
    if (watch) watch.written = true;
  });
}

/** Runs `call` (one `fetch`), noting in `writes` whether its request was made and written. */
export function watchRequest<T>(writes: RequestWrites, call: () => Promise<T>): Promise<T> {
  subscribeOnce();
  return current.run(writes, call);
}
