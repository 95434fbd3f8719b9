import { wibDay } from '../../lambdas/domain/time/wib';
import { call, equalTo, SECOND, SECOND_SEED, startTestRuntime, waitForAnswer, waitForStatus } from '../support/local-runtime';

const KEY = SECOND.fullKey;
const TEMPLATE_ID = SECOND.templateId;
let runtime: Awaited<ReturnType<typeof startTestRuntime>>;

beforeAll(async () => {
  runtime = await startTestRuntime({ seedPath: SECOND_SEED });
});
afterAll(() => runtime.stop());


describe('tracking reports over HTTP, after real deliveries', () => {
  it('sends, waits for delivery, and reads tag discovery, summary and the dispatch list', async () => {
    // The WIB days the sends fall on: two when the run crosses midnight (17:00 UTC).
    const startDate = wibDay(new Date());
    const ids: string[] = [];
    for (const [to, tags] of [['081234561001', ['launch', 'vip']], ['081234561002', ['launch']], ['081234560000', ['launch']], ['081234561003', []]] as const) {
      const { body } = await call(runtime.url, 'POST', '/v1/messages', {
        apiKey: KEY,
        body: { channel: 'whatsapp', to, content: { type: 'template', templateId: TEMPLATE_ID, variables: { name: 'Sari' } }, trackingTags: tags },
      });
      ids.push(body.dispatchId as string);
    }
    for (const id of ids) await waitForStatus(runtime.url, KEY, id, ['delivered', 'failed']);
    const endDate = wibDay(new Date());
    const period = `startDate=${startDate}&endDate=${endDate}`;

    // The rollups are the report projection's, written as its window ends (decision 113).
    const expectedTags = {
      items: [
        { trackingTag: 'launch', dispatchCount: 2 },
        { trackingTag: 'vip', dispatchCount: 1 },
      ],
      pagination: { page: 1, limit: 50, totalItems: 2, totalPages: 1 },
    };
    const tags = await waitForAnswer(runtime.url, KEY, `/v1/messages/tracking-tags?${period}`, equalTo(expectedTags));
    expect(tags.body).toStrictEqual(expectedTags);

    const expectedSummary = {
      period: { startDate, endDate, timezone: 'Asia/Jakarta' },
      rupiahPerCredit: 100,
      items: [
        { trackingTag: 'launch', dispatchCount: 2, credits: 2, amountRupiah: 200, templates: [{ templateId: TEMPLATE_ID, templateName: 'Second hello', dispatchCount: 2, credits: 2, amountRupiah: 200 }] },
        { trackingTag: 'vip', dispatchCount: 1, credits: 1, amountRupiah: 100, templates: [{ templateId: TEMPLATE_ID, templateName: 'Second hello', dispatchCount: 1, credits: 1, amountRupiah: 100 }] },
      ],
    };
    const summary = await call(runtime.url, 'GET', `/v1/messages/tracking-report/summary?${period}&trackingTags=launch&trackingTags=vip`, { apiKey: KEY });
    expect(summary.body).toStrictEqual(expectedSummary);

    // The untagged send may have been counted a window after the tagged ones.
    const all = await waitForAnswer(runtime.url, KEY, `/v1/messages/tracking-report/dispatches?${period}&scope=WORKSPACE`, (body) => (body.pagination as { totalItems: number }).totalItems === 3);
    expect((all.body.items as { dispatchId: string; status: string }[]).map((row) => [row.dispatchId, row.status])).toEqual([
      [ids[3], 'DELIVERED'],
      [ids[1], 'DELIVERED'],
      [ids[0], 'DELIVERED'],
    ]);
    const both = await call(runtime.url, 'GET', `/v1/messages/tracking-report/dispatches?${period}&trackingTags=launch&trackingTags=vip&match=ALL`, { apiKey: KEY });
    expect((both.body.items as { dispatchId: string }[]).map((row) => row.dispatchId)).toEqual([ids[0]]);
    expect(both.body.pagination).toEqual({ page: 1, limit: 50, totalItems: 1, totalPages: 1 });

    const neighbour = await call(runtime.url, 'GET', `/v1/messages/tracking-report/dispatches?${period}&scope=WORKSPACE`, { apiKey: 'msk_test_neighbour_0001' });
    expect(neighbour.body.items).toEqual([]);
  }, 30_000);
});
