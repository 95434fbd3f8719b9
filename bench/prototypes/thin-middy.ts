/**
 * A prototype, not the product: the middleware runner that row 2's prototype rows (2d–2f) put in
 * place of `@middy/core`, to measure what issue 17's ×1.3 warm-CPU target would take (decision 119).
 * It runs what lambdas/http/http-stack.ts gives Middy the way Middy runs it: `before`s in order,
 * the first to return a value answering early; the handler; `after`s in reverse; on a throw,
 * `onError`s in reverse until one sets a response, else the error is thrown.
 *
 * What it leaves out, and the stack would give up with it: the early-timeout answer (Middy answers
 * a contract error body 5 ms before Lambda's timeout, with a timer and an AbortController each
 * request), the plugin hooks, response streaming and the library's upkeep. It is not tested beyond
 * the row that runs it.
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

export default function middy(options: { executionMode?: unknown } = {}) {
  if (options.executionMode) throw new Error('The thin runner does not stream');
  const befores: Step[] = [];
  const afters: Step[] = [];
  const onErrors: Step[] = [];
  let lambdaHandler: Handler = () => Promise.resolve(undefined);

  const run = async (event: unknown, context: unknown) => {
    const request: Request = { event, context, response: undefined, error: undefined, internal: {} };
    try {
      if (!(await runSteps(befores, request))) {
        request.response = await lambdaHandler(event, context);
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
  run.use = (middleware: MiddlewareObj) => {
    if (middleware.before) befores.push(middleware.before);
    if (middleware.after) afters.unshift(middleware.after);
    if (middleware.onError) onErrors.unshift(middleware.onError);
    return run;
  };
  run.handler = (handler: Handler) => {
    lambdaHandler = handler;
    return run;
  };
  return run;
}
