/**
 * @slow starts a DynamoDB Local of its own and writes 11 000 dispatches (about 40 s).
 */
import { startDynamoDbLocal, type DynamoDbLocal } from '../../lib/local/dynamodb-local';
import { SECOND_SEED, startTestRuntime } from '../support/local-runtime';
import { contractFetch } from '../support/openapi-contract';

let dynamodb: DynamoDbLocal;
let runtime: Awaited<ReturnType<typeof startTestRuntime>>;

// A DynamoDB Local of its own: once the run's shared one has held these 11 000 dispatches, it
// answers every later file several times slower, even after their table is deleted (a CI run's
// delivery burst took 69 s instead of 8 s after this file). Its dispatches are written straight to
// the table, already delivered and counted: no stream reader needs to see them, and reading
// 11 000 records would slow the seed to about twice its time.
beforeAll(async () => {
  dynamodb = await startDynamoDbLocal();
  runtime = await startTestRuntime({ seedPath: SECOND_SEED, dynamodbEndpoint: dynamodb.endpoint, streamReaders: false });
});
afterAll(async () => {
  await runtime?.stop();
  await dynamodb?.stop();
});

describe('a report page larger than Lambda’s 6 MB buffered response', () => {
  it('comes back whole, streamed, with limit 100000', async () => {
    // Rows as a template named at its 200-character limit writes them (lambdas/domain/templates):
    // each about 640 bytes, so 11 000 make a 7.1 MB page (6.75 MiB), where it took 15 000 rows with a short name.
    const count = 11_000;
    const displayName = `Second hello ${'x'.repeat(200 - 'Second hello '.length)}`;
    // Loaded after the runtime: it reads handler configuration, which the runtime sets.
    const { seedDeliveredDispatches } = await import('../support/seed-reports');
    await seedDeliveredDispatches(runtime.store, {
      workspaceId: 'ws-second',
      count,
      days: 3,
      lastDay: '2026-08-03',
      // A WORKSPACE page reads no tag links: without tags the seed writes half the items (about 9 s), and the page is still over 6 MB.
      tags: [],
      templates: [{ id: '5e0c0000-0000-4000-8000-000000000001', name: displayName }],
    });

    const response = await contractFetch(`${runtime.url}/v1/messages/tracking-report/dispatches?startDate=2026-08-01&endDate=2026-08-03&scope=WORKSPACE&limit=100000`, {
      headers: { 'X-API-Key': 'msk_test_second_full_0001' },
    });
    const text = await response.text();
    const body = JSON.parse(text) as { items: { createdAt: string; dispatchId: string; templateName: string }[]; pagination: unknown };

    expect(response.status).toBe(200);
    expect(Buffer.byteLength(text)).toBeGreaterThan(6 * 1024 * 1024);
    expect(body.items).toHaveLength(count);
    expect(body.items.every((row) => row.templateName === displayName)).toBe(true);
    expect(body.pagination).toEqual({ page: 1, limit: 100000, totalItems: count, totalPages: 1 });
    const order = body.items.map((row) => `${row.createdAt}#${row.dispatchId}`);
    expect(order).toEqual([...order].sort().reverse());
  }, 120_000);
});
