import { pathOf, routes } from '../../lambdas/routes';
import { percentile, valueNumbers, verdictOf, type Row } from '../harness';

const DEMO_TEMPLATE = '7b0c5c3e-0000-4000-8000-000000000001';

interface Settled {
  createdAt: string;
  /** When the last change (here: delivered) reached us; deliveredAt is the provider's whole-second time. */
  updatedAt: string;
  sentAt: string | null;
  deliveredAt: string | null;
  status: string;
}

/**
 * Sends over HTTP on the local runtime, `perSecond` at most (0: as fast as `concurrency` allows),
 * waits until every dispatch settles, and returns each one's own timestamps: createdAt (just
 * before the 202), sentAt (the provider accepted), deliveredAt (the sandbox's report arrived).
 */
export async function sendAndSettle(baseUrl: string, apiKey: string, count: number, concurrency: number, perSecond: number, offset: number): Promise<Settled[]> {
  const ids: string[] = [];
  let next = 0;
  const started = Date.now();
  const sender = async () => {
    while (next < count) {
      const i = next++;
      if (perSecond) await new Promise((resolve) => setTimeout(resolve, Math.max(0, started + (i * 1000) / perSecond - Date.now())));
      const response = await fetch(`${baseUrl}/v1/messages`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-api-key': apiKey },
        body: JSON.stringify({ channel: 'whatsapp', to: `08123${String(100000 + offset + i)}1`, content: { type: 'template', templateId: DEMO_TEMPLATE, variables: { name: 'Bench', order: String(i) } } }),
      });
      if (response.status !== 202) throw new Error(`send answered ${response.status}: ${await response.text()}`);
      ids.push(((await response.json()) as { dispatchId: string }).dispatchId);
    }
  };
  await Promise.all(Array.from({ length: concurrency }, sender));

  const statuses = new Map<string, Settled>();
  const deadline = Date.now() + 120_000;
  while (statuses.size < ids.length && Date.now() < deadline) {
    for (const id of ids.filter((id) => !statuses.has(id))) {
      const body = (await (await fetch(`${baseUrl}${pathOf(routes.getMessage, { dispatchId: id })}`, { headers: { 'x-api-key': apiKey } })).json()) as Settled;
      if (body.status === 'delivered' || body.status === 'failed') statuses.set(id, body);
    }
    if (statuses.size < ids.length) await new Promise((resolve) => setTimeout(resolve, 200));
  }
  return [...statuses.values()].filter((s) => s.sentAt && s.deliveredAt);
}

/**
 * Row 4: latency at a steady 10 sends/s, which the local consumer keeps up with, then the
 * consumer's throughput under a burst it cannot keep up with.
 */
export async function deliveryLatency(baseUrl: string, apiKey: string): Promise<Row[]> {
  const paced = await sendAndSettle(baseUrl, apiKey, 100, 4, 10, 0);
  const toSent = paced.map((s) => Date.parse(s.sentAt!) - Date.parse(s.createdAt));
  const toDelivered = paced.map((s) => Date.parse(s.updatedAt) - Date.parse(s.createdAt));

  const burstStarted = Date.now();
  const settled = await sendAndSettle(baseUrl, apiKey, 300, 16, 0, 1000);
  const lastSent = Math.max(...settled.map((s) => Date.parse(s.sentAt!)));
  const firstCreated = Math.min(...settled.map((s) => Date.parse(s.createdAt)));
  const throughput = settled.length / ((lastSent - firstCreated) / 1000);

  const sentNumbers = valueNumbers('ms, p50', percentile(toSent, 50), 250);
  return [
    {
      id: '4a',
      what: `202 → sent (${paced.length}/100 sends at 10/s)`,
      figure: `p50 ${percentile(toSent, 50)} ms, p99 ${percentile(toSent, 99)} ms`,
      target: 'p50 ≤ 250 ms',
      verdict: verdictOf(sentNumbers),
      numbers: sentNumbers,
    },
    {
      id: '4b',
      what: '202 → delivered recorded (sandbox reports 300 ms after accepting)',
      figure: `p50 ${percentile(toDelivered, 50)} ms, p99 ${percentile(toDelivered, 99)} ms`,
      target: 'reported',
      verdict: 'reported',
      numbers: valueNumbers('ms, p50', percentile(toDelivered, 50), null),
    },
    {
      id: '4c',
      what: `consumer throughput: burst of ${settled.length} sends, first 202 to last sent`,
      figure: `${throughput.toFixed(0)} dispatches/s (${((Date.now() - burstStarted) / 1000).toFixed(1)} s to settle all)`,
      target: 'reported',
      verdict: 'reported',
      numbers: valueNumbers('dispatches/s', throughput, null),
    },
  ];
}
