import { updateWorkspace } from '../../lambdas/domain/workspaces/workspace-repository';
import { startGraphStub, type GraphStub } from '../support/graph-stub';
import { call, SECOND, SECOND_SEED, startTestRuntime, waitForStatus } from '../support/local-runtime';

const KEY = SECOND.fullKey;
let runtime: Awaited<ReturnType<typeof startTestRuntime>>;
let graph: GraphStub;
/** When each provider call reached the Graph stub (epoch ms). */
const arrivals: number[] = [];
const graphBaseUrl = process.env.GRAPH_API_BASE_URL;

beforeAll(async () => {
  // Meta's answer to an accepted template message (Cloud API, POST /{phone-number-id}/messages).
  graph = await startGraphStub((request) => {
    arrivals.push(Date.now());
    const { to } = request.body as { to: string };
    return { status: 200, body: { messaging_product: 'whatsapp', contacts: [{ input: to, wa_id: to.replace('+', '') }], messages: [{ id: `wamid.HBgLNjI4MTIzNDU2Nzg5MBUCABEYEj${arrivals.length}` }] } };
  });
  // Read when the runtime loads its handlers.
  process.env.GRAPH_API_BASE_URL = graph.baseUrl;
  runtime = await startTestRuntime({ seedPath: SECOND_SEED });
  // The workspace's own number, which WhatsApp takes two messages a second from.
  await updateWorkspace('ws-second', { settings: { provider: 'whatsapp', whatsappMessagesPerSecond: 2 } }, new Date(), runtime.store);
});
afterAll(async () => {
  await runtime.stop();
  await graph.close();
  if (graphBaseUrl === undefined) delete process.env.GRAPH_API_BASE_URL;
  else process.env.GRAPH_API_BASE_URL = graphBaseUrl;
});

describe('a WhatsApp number’s pace, over HTTP (decision 136)', () => {
  it('spreads a burst over the seconds the number’s throughput needs, each message sent once', async () => {
    const ids: string[] = [];
    for (let i = 0; i < 6; i++) {
      const { status, body } = await call(runtime.url, 'POST', '/v1/messages', {
        apiKey: KEY,
        body: { channel: 'whatsapp', to: `08123456${i}701`, content: { type: 'template', templateId: SECOND.templateId, variables: { name: 'Sari' } } },
      });
      expect(status).toBe(202);
      ids.push(body.dispatchId as string);
    }

    for (const id of ids) expect(await waitForStatus(runtime.url, KEY, id, ['sent', 'failed', 'unknown'])).toMatchObject({ status: 'sent' });

    // Each dispatch went to the provider once, by the id it echoes.
    expect(graph.received.map((request) => (request.body as { biz_opaque_callback_data: string }).biz_opaque_callback_data).sort()).toEqual([...ids].sort());
    // Six at two a second take three seconds at least; sent unpaced they take a fraction of one.
    expect(new Set(arrivals.map((at) => Math.floor(at / 1000))).size).toBeGreaterThanOrEqual(3);
  }, 30_000);
});
