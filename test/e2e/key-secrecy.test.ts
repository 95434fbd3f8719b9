import { scanAll } from '../support/dynamodb';
import { call, SECOND, SECOND_SEED, startTestRuntime, waitForStatus } from '../support/local-runtime';

/**
 * API key material is never stored or logged in plain text (issue 7), even with the most
 * talkative logging an operator can switch on: DEBUG, and Powertools' "log the whole event".
 * Set before the runtime imports the handlers, exactly as a function's environment would be.
 */
process.env.POWERTOOLS_LOG_LEVEL = 'DEBUG';
process.env.POWERTOOLS_LOGGER_LOG_EVENT = 'true';

const SEEDED_KEYS = [SECOND.fullKey, SECOND.readKey, SECOND.neighbourKey];
const UNKNOWN_KEY = 'msk_live_NeverIssuedKey0000000000000000';

let runtime: Awaited<ReturnType<typeof startTestRuntime>>;
const captured: string[] = [];

beforeAll(async () => {
  for (const stream of [process.stdout, process.stderr]) {
    const write = stream.write.bind(stream) as (chunk: unknown, ...rest: unknown[]) => boolean;
    jest.spyOn(stream, 'write').mockImplementation((chunk: unknown, ...rest: unknown[]) => {
      captured.push(String(chunk));
      return write(...([chunk, ...rest] as [unknown]));
    });
  }
  jest.spyOn(console, 'log').mockImplementation((...args: unknown[]) => void captured.push(args.map(String).join(' ')));
  runtime = await startTestRuntime({ seedPath: SECOND_SEED });
});
afterAll(async () => {
  await runtime.stop();
  jest.restoreAllMocks();
});

/** The parts of a key worth hiding: the whole key, and its secret part without the last 4 (the hint). */
const fragmentsOf = (key: string) => [key, key.slice(4, -4)];

describe('API key material', () => {
  it('appears in neither the table nor the logs after seeding and authenticated, refused and failing requests', async () => {
    const [full, readOnly] = SEEDED_KEYS as [string, string];
    const requests = [
      call(runtime.url, 'GET', '/v1/message-templates', { apiKey: full }),
      call(runtime.url, 'POST', '/v1/messages', { apiKey: full, body: { channel: 'whatsapp', to: '081234567890', content: { type: 'template', templateId: '5e0c0000-0000-4000-8000-000000000001', variables: { name: 'Ayu' } } } }),
      call(runtime.url, 'POST', '/v1/messages', { apiKey: readOnly, body: { channel: 'whatsapp', to: '081234567890', content: { type: 'text', text: 'x' } } }),
      call(runtime.url, 'GET', '/v1/message-templates', { apiKey: UNKNOWN_KEY }),
      call(runtime.url, 'GET', '/v1/messages/not-a-uuid', { apiKey: full }),
      call(runtime.url, 'POST', '/v1/messages', { apiKey: full, body: '{"channel":', headers: { 'Content-Type': 'application/json' } }),
    ];
    const responses = await Promise.all(requests);
    expect(responses.map((response) => response.status)).toEqual([200, 202, 403, 401, 422, 422]);
    // The HTTP functions never log their event (it carries the key); the functions the send sets
    // going do. Waiting for its delivery lets them run, and their lines are read too.
    await waitForStatus(runtime.url, full, responses[1]!.body.dispatchId as string, ['delivered', 'read']);

    const logs = captured.join('\n');
    // The logging under test was on: it recorded the invocation events and the refusals.
    expect(logs).toContain('Lambda invocation event');
    expect(logs).toContain('Request rejected');

    const table = JSON.stringify(await scanAll(runtime.store));
    for (const key of [...SEEDED_KEYS, UNKNOWN_KEY]) {
      for (const fragment of fragmentsOf(key)) {
        expect(logs).not.toContain(fragment);
        expect(table).not.toContain(fragment);
      }
    }
  }, 30_000);
});
