import { GetQueueAttributesCommand, SQSClient } from '@aws-sdk/client-sqs';
import { execFile } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { join } from 'node:path';
import { isDeepStrictEqual, promisify } from 'node:util';
import { PROJECT_ROOT } from '../../lib/local/paths';
import { startLocalRuntime, type LocalRuntime, type LocalRuntimeOptions } from '../../lib/local/runtime';
import { pathOf, routes } from '../../lambdas/routes';
import { createStore, type Store } from '../../lambdas/shared/store';
import { contractFetch } from './openapi-contract';

export const SECOND_SEED = join(__dirname, '..', 'fixtures', 'second-workspace-seed.json');
/** What SECOND_SEED holds that tests name: ws-second's keys and template, and ws-neighbour's key. */
export const SECOND: Readonly<Record<'fullKey' | 'readKey' | 'neighbourKey' | 'templateId' | 'versionId', string>> = {
  fullKey: 'msk_test_second_full_0001',
  readKey: 'msk_test_second_read_0002',
  neighbourKey: 'msk_test_neighbour_0001',
  templateId: '5e0c0000-0000-4000-8000-000000000001',
  versionId: '5e0c0000-0000-4000-8000-0000000000a1',
};

/**
 * The local runtime on a free port, sharing the run's DynamoDB Local and SQS emulator under
 * names of its own. The HTTP server, event translation and handlers are the real ones. Its report
 * projection sums over windows of `TEST_REPORTS_WINDOW_SECONDS`, not the stack's 5 s: tests read
 * reports as soon as a window ends, and a shorter one ends sooner.
 */
export const TEST_REPORTS_WINDOW_SECONDS = 1;
export async function startTestRuntime(
  options: {
    seedPath?: string;
    /** Failure tests put a DynamoDB Local or a proxy of their own in front (see failure.test.ts). */
    dynamodbEndpoint?: string;
    sqsEndpoint?: string;
    /** Background errors (poller, reconciler) fail the test unless the test expects them. */
    onError?: (error: unknown) => void;
    webhookFrontDoor?: LocalRuntimeOptions['webhookFrontDoor'];
    invoke?: LocalRuntimeOptions['invoke'];
    streamReaders?: boolean;
  } = {},
): Promise<LocalRuntime & { store: Store }> {
  const runtime = await startLocalRuntime({
    port: 0,
    ...(options.seedPath ? { seedPath: options.seedPath } : {}),
    dynamodbEndpoint: options.dynamodbEndpoint ?? process.env.TEST_DYNAMODB_ENDPOINT!,
    sqsEndpoint: options.sqsEndpoint ?? process.env.TEST_SQS_ENDPOINT!,
    namePrefix: `e2e-${randomUUID().slice(0, 8)}`,
    isolateInvocations: true,
    reportsWindowSeconds: TEST_REPORTS_WINDOW_SECONDS,
    ...(options.webhookFrontDoor ? { webhookFrontDoor: options.webhookFrontDoor } : {}),
    ...(options.invoke ? { invoke: options.invoke } : {}),
    ...(options.streamReaders === false ? { streamReaders: false } : {}),
    onError:
      options.onError ??
      ((error) => {
        throw error;
      }),
  });
  return { ...runtime, store: createStore({ tableName: runtime.tableName, region: runtime.region, endpoint: runtime.dynamodbEndpoint }) };
}

/**
 * A test's timeout with `runs` admin processes in it: one is about 4 s of CPU (tsx and the SDK
 * loading) and took 15 s at a load of 29 on a 2-core machine, which a fixed 30 s did not hold for
 * four. A timeout here finds a hang, never measures speed (`npm run bench` does).
 */
export const timeoutWithAdminRuns = (runs: number, restMs = 20_000) => restMs + runs * 20_000;

/**
 * `bin/admin.ts … --local --port <runtime's>`, as an operator's shell runs it: this process's
 * environment and `env`, less AWS_LAMBDA_MAX_CONCURRENCY, which the runtime set for its own
 * invocations (lib/local/invocation-store.ts) and which would make the CLI's Powertools look for a
 * per-invocation store it does not have.
 */
export function runAdmin(runtime: Pick<LocalRuntime, 'port'>, args: string[], env: NodeJS.ProcessEnv = {}) {
  const inherited = { ...process.env };
  delete inherited.AWS_LAMBDA_MAX_CONCURRENCY;
  return promisify(execFile)(join(PROJECT_ROOT, 'node_modules', '.bin', 'tsx'), [join(PROJECT_ROOT, 'bin', 'admin.ts'), ...args, '--local', '--port', String(runtime.port)], {
    cwd: PROJECT_ROOT,
    env: { ...inherited, ...env },
  });
}

export interface HttpResponse {
  status: number;
  headers: Headers;
  body: Record<string, unknown>;
}

/** One request to the runtime; the response is checked against docs/openapi.json before it is returned. */
export async function call(base: string, method: string, path: string, options: { apiKey?: string; body?: unknown; headers?: Record<string, string> } = {}): Promise<HttpResponse> {
  const headers: Record<string, string> = { ...options.headers };
  if (options.apiKey) headers['X-API-Key'] = options.apiKey;
  let body: string | undefined;
  if (options.body !== undefined) {
    body = typeof options.body === 'string' ? options.body : JSON.stringify(options.body);
    headers['Content-Type'] ??= 'application/json';
  }
  const response = await contractFetch(`${base}${path}`, { method, headers, ...(body !== undefined ? { body } : {}) });
  // Parsed here, not with response.json(): fetch builds objects in Node's realm, not jest's.
  // A 204 has no body at all: the contract check above made sure of that.
  const text = await response.text();
  return { status: response.status, headers: response.headers, body: text === '' && response.status === 204 ? {} : (JSON.parse(text) as Record<string, unknown>) };
}

/**
 * Waits until the runtime's dispatch queue holds nothing, visible, in flight or delayed: the
 * consumer has nothing left to do, so a dispatch still `queued` or `processing` is stranded.
 */
export async function queueSettled(runtime: { sqsEndpoint: string; region: string; queueUrl: string }): Promise<void> {
  const sqs = new SQSClient({ endpoint: runtime.sqsEndpoint, region: runtime.region });
  const names = ['ApproximateNumberOfMessages', 'ApproximateNumberOfMessagesNotVisible', 'ApproximateNumberOfMessagesDelayed'] as const;
  try {
    for (;;) {
      const { Attributes = {} } = await sqs.send(new GetQueueAttributesCommand({ QueueUrl: runtime.queueUrl, AttributeNames: [...names] }));
      if (names.every((name) => Attributes[name] === '0')) return;
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
  } finally {
    sqs.destroy();
  }
}

/** Polls a dispatch's status until it is one of `statuses` (the test's own timeout bounds the wait). */
export async function waitForStatus(base: string, apiKey: string, dispatchId: string, statuses: string[]): Promise<Record<string, unknown>> {
  for (;;) {
    const { body } = await call(base, 'GET', pathOf(routes.getMessage, { dispatchId }), { apiKey });
    if (statuses.includes(body.status as string)) return body;
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}

/**
 * Polls a GET until `done` holds of its body, and returns the last answer: the reports read tag
 * links and rollups the report projection writes from the stream, the rollups a window after the
 * move (decision 113). Gives up after 15 s, answering what it last read: the test's own assertion
 * on the answer then tells how it differs.
 */
export async function waitForAnswer(base: string, apiKey: string, path: string, done: (body: Record<string, unknown>) => boolean): Promise<{ status: number; body: Record<string, unknown> }> {
  const deadline = Date.now() + 15_000;
  for (;;) {
    const answer = await call(base, 'GET', path, { apiKey });
    if (done(answer.body) || Date.now() > deadline) return answer;
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}

/** `waitForAnswer`'s test for a body equal to `expected`. */
export const equalTo = (expected: unknown) => (body: unknown) => isDeepStrictEqual(body, expected);

/**
 * Polls delivery-status for `phone` until the dispatch's events include every one of `statuses`,
 * and returns the answer's body: a status move's events are written from its stream record, a
 * moment after the move (decision 112). The test's own timeout bounds the wait.
 */
export async function waitForDeliveryEvents(base: string, apiKey: string, phone: string, dispatchId: string, statuses: string[]): Promise<Record<string, unknown>> {
  for (;;) {
    const { body } = await call(base, 'POST', '/v1/messages/delivery-status', { apiKey, body: { phones: [phone], startDate: '2026-01-01', endDate: '2099-12-31' } });
    const events = ((body.items as { events: { dispatchId: string; status: string }[] }[] | undefined)?.[0]?.events ?? []).filter((event) => event.dispatchId === dispatchId);
    if (statuses.every((status) => events.some((event) => event.status === status))) return body;
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}
