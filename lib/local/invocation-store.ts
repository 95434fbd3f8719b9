import { AsyncLocalStorage } from 'node:async_hooks';
import { InvokeStoreBase } from '@aws/lambda-invoke-store';

type StoreContext = Record<string | symbol, unknown>;

/**
 * Lambda's per-invocation store (`globalThis.awslambda.InvokeStore`) for a process that serves
 * several invocations at once: one context for each invocation, however their awaits interleave.
 * Outside every invocation (the runtime's own lines, a test calling the domain directly) there is
 * one shared context, as in a process that serves one invocation at a time.
 */
class LocalInvokeStore extends InvokeStoreBase {
  private readonly invocations = new AsyncLocalStorage<StoreContext>();
  private readonly outside: StoreContext = {};

  getContext(): StoreContext {
    return this.invocations.getStore() ?? this.outside;
  }

  hasContext(): boolean {
    return true;
  }

  get<T = unknown>(key: string | symbol): T | undefined {
    return this.getContext()[key] as T | undefined;
  }

  set<T = unknown>(key: string | symbol, value: T): void {
    if (this.isProtectedKey(key)) throw new Error(`Cannot modify protected Lambda context field: ${String(key)}`);
    this.getContext()[key] = value;
  }

  run<T>(context: StoreContext, fn: () => T): T {
    return this.invocations.run(context, fn);
  }
}

/**
 * Gives each invocation in this process its own Powertools state — the logger's Lambda context,
 * appended keys and log level, the batch processor's records — as Lambda does for a function whose
 * environment serves several invocations at once (`AWS_LAMBDA_MAX_CONCURRENCY`, which Powertools
 * reads to keep that state in the store). The local runtime runs every function in one process,
 * so without it a line logged by the deliver consumer carried whichever route had set its
 * context last: another function's name, another request's API key (docs/decisions.md, 106).
 * Returns the runner of one invocation.
 */
export function isolateInvocations(): <T>(invocation: () => T) => T {
  globalThis.awslambda ??= {} as typeof globalThis.awslambda;
  if (!(globalThis.awslambda.InvokeStore instanceof LocalInvokeStore)) globalThis.awslambda.InvokeStore = new LocalInvokeStore();
  process.env.AWS_LAMBDA_MAX_CONCURRENCY ??= '64';
  const store = globalThis.awslambda.InvokeStore;
  return (invocation) => store.run({}, invocation);
}
