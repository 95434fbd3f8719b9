/**
 * A prototype, not the product: the middleware runner that row 2's prototype rows (2d–2f) put in
 * place of `@middy/core`, to measure what issue 17's ×1.3 warm-CPU target would take (decision 119).
 * It runs what lambdas/http/http-stack.ts gives Middy the way Middy runs it: `before`s in order,
 * the first to return a value answering early; the handler; `after`s in reverse; on a throw,
 * `onError`s in reverse until one sets a response, else the error is thrown.
 *
 * A streamed route (the tracking summary, decision 229) names Middy's own execution mode, which is
 * kept: it is handed this runner's request runner, as Middy hands it its own, and writes the
 * answer to Lambda's response stream. Only the runner is the prototype's.
 *
 * What it leaves out, and the stack would give up with it: the early-timeout answer (Middy answers
 * a contract error body 5 ms before Lambda's timeout, with a timer and an AbortController each
 * request), the plugin hooks and the library's upkeep. It is not tested beyond the rows that run it.
 */
interface Request {
  event: unknown;
  context: unknown;
  response: unknown;
  error: unknown;
  internal: Record<string, unknown>;
}
type Step = (request: Request) => unknown;
interface MiddlewareObj {
  before?: Step;
  after?: Step;
  onError?: Step;
}
type Handler = (event: unknown, context: unknown) => Promise<unknown>;
/** What Middy hands an execution mode: the hooks the stack's modes call, all doing nothing here. */
interface Plugin {
  requestStart(request: Request): void;
  requestEnd(request: Request): void;
}
type RunRequest = (request: Request, befores: Step[], handler: Handler, afters: Step[], onErrors: Step[], plugin: Plugin) => Promise<unknown>;
/** Middy's execution-mode signature (@middy/core/executionModeStandard.js and its siblings). */
type ExecutionMode = (
  runner: { middyRequest: (event: unknown, context: unknown) => Request; runRequest: RunRequest },
  befores: Step[],
  handler: Handler,
  afters: Step[],
  onErrors: Step[],
  plugin: Plugin,
) => Runnable;
type Runnable = ((event: never, ...rest: never[]) => Promise<unknown>) & { handler(handler: Handler): Runnable };

async function runSteps(steps: Step[], request: Request): Promise<boolean> {
  for (const step of steps) {
    const early = await step(request);
    if (early !== undefined) {
      request.response = early;
      return true;
    }
  }
  return false;
}

const middyRequest = (event: unknown, context: unknown): Request => ({ event, context, response: undefined, error: undefined, internal: {} });

const runRequest: RunRequest = async (request, befores, handler, afters, onErrors) => {
  try {
    if (!(await runSteps(befores, request))) {
      request.response = await handler(request.event, request.context);
      await runSteps(afters, request);
    }
  } catch (error) {
    request.response = undefined;
    request.error = error;
    await runSteps(onErrors, request);
    if (request.response === undefined) throw request.error;
  }
  return request.response;
};

/** The buffered mode: the handler's answer is the invocation's result. */
const standard: ExecutionMode = (runner, befores, handler, afters, onErrors, plugin) => {
  let lambdaHandler = handler;
  const run: Runnable = Object.assign((event: unknown, context: unknown) => runner.runRequest(runner.middyRequest(event, context), befores, lambdaHandler, afters, onErrors, plugin), {
    handler(replacement: Handler) {
      lambdaHandler = replacement;
      return run;
    },
  });
  return run;
};

const noop = () => undefined;

export default function middy(options: { executionMode?: ExecutionMode } = {}) {
  // The mode keeps these arrays, so `use` fills them in place.
  const befores: Step[] = [];
  const afters: Step[] = [];
  const onErrors: Step[] = [];
  const run = (options.executionMode ?? standard)({ middyRequest, runRequest }, befores, () => Promise.resolve(undefined), afters, onErrors, { requestStart: noop, requestEnd: noop });
  const use = (middleware: MiddlewareObj) => {
    if (middleware.before) befores.push(middleware.before);
    if (middleware.after) afters.unshift(middleware.after);
    if (middleware.onError) onErrors.unshift(middleware.onError);
    return Object.assign(run, { use });
  };
  return Object.assign(run, { use });
}
