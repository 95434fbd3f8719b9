// Module resolution hooks (registered by thin-stack.mjs): the libraries the prototype replaces,
// resolved to the prototypes. tsx, registered before, still compiles them.
import { URL } from 'node:url';

const prototypes = new Map([
  ['@middy/core', new URL('./thin-middy.ts', import.meta.url).href],
  ['@aws-lambda-powertools/logger', new URL('./small-logger.ts', import.meta.url).href],
  ['@aws-lambda-powertools/logger/middleware', new URL('./small-logger.ts', import.meta.url).href],
]);

export async function resolve(specifier, context, nextResolve) {
  const url = prototypes.get(specifier);
  return url ? { url, shortCircuit: true } : nextResolve(specifier, context);
}
