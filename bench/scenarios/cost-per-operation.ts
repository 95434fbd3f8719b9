import { handler as listTemplates } from '../../lambdas/handlers/list-templates';
import { handler as getMessage } from '../../lambdas/handlers/get-message';
import { handler as sendMessage } from '../../lambdas/handlers/send-message';
import { handler as sendCheck } from '../../lambdas/handlers/send-check';
import { clearApiKeyCache } from '../../lambdas/domain/api-keys/authenticate';
import { lambdaContext } from '../../lib/local/api-gateway-event';
import { invokeRoute, routeEvent } from '../../test/support/events';
import { describeCalls, sameCalls, valueNumbers, type Row, type instrument } from '../harness';

type Meter = ReturnType<typeof instrument>;

const DEMO_TEMPLATE = '7b0c5c3e-0000-4000-8000-000000000001';

/** Row 5: DynamoDB and SQS calls and consumed capacity per operation, on the real handlers. */
export async function costPerOperation(meter: Meter, apiKey: string): Promise<Row[]> {
  const list = () => invokeRoute('listTemplates', listTemplates, { apiKey });
  let sent = 0;
  const send = (headers: Record<string, string> = {}, variables: Record<string, string> = { name: 'Budi', order: `B-${sent++}` }) =>
    sendMessage(
      routeEvent('sendMessage', { apiKey, headers, body: { channel: 'whatsapp', to: '081234567890', content: { type: 'template', templateId: DEMO_TEMPLATE, variables } } }),
      lambdaContext('sendMessage'),
    );

  clearApiKeyCache();
  const listCold = await meter.measure(list);
  const listWarm = await meter.measure(list);

  const firstSend = await meter.measure(() => send());
  const steadySend = await meter.measure(() => send());
  const keyedSend = await meter.measure(() => send({ 'Idempotency-Key': `bench-${Date.now()}` }));
  const rejectedSend = await meter.measure(() => send({}, { name: 'Budi' }));

  const result = await send();
  const dispatchId = (JSON.parse(result.body) as { dispatchId: string }).dispatchId;
  const statusRead = await meter.measure(() => getMessage(routeEvent('getMessage', { apiKey, pathParameters: { dispatchId } }), lambdaContext('getMessage')));

  // The number's conversation holds the sends above; the newest counts (decision 115).
  const checked = await meter.measure(() => sendCheck(routeEvent('sendCheck', { apiKey, query: { phone: '081234567890', templateId: DEMO_TEMPLATE } }), lambdaContext('sendCheck')));

  const everything = [...listCold, ...listWarm, ...firstSend, ...steadySend, ...keyedSend, ...rejectedSend, ...statusRead, ...checked];
  // The verdict asks for exactly the calls named; the numbers count them.
  const row = (id: string, what: string, calls: typeof everything, target: string, expected: string[], note?: string): Row => ({
    id,
    what,
    figure: describeCalls(calls),
    target,
    verdict: sameCalls(calls, expected) ? 'met' : 'missed',
    ...(note && !sameCalls(calls, expected) ? { note } : {}),
    numbers: valueNumbers('AWS calls', calls.length, expected.length),
  });
  const scans = everything.filter((call) => /Scan/.test(call.command)).length;

  return [
    row('5a', 'GET /v1/message-templates, key not cached', listCold, '1 GetItem (key) + 1 Query', ['GetItemCommand', 'QueryCommand']),
    row('5b', 'GET /v1/message-templates, key cached', listWarm, '1 Query', ['QueryCommand']),
    {
      id: '5c',
      what: 'POST /v1/messages, first of the minute (cold caches)',
      figure: describeCalls(firstSend),
      target: 'reported: template, workspace reads and the allowance lease, once per container/minute',
      verdict: 'reported',
      numbers: valueNumbers('AWS calls', firstSend.length, null),
    },
    row('5d', 'POST /v1/messages, steady state', steadySend, '1 TransactWriteItems + 1 SendMessage', ['TransactWriteItemsCommand', 'SendMessageCommand']),
    row(
      '5e',
      'POST /v1/messages with Idempotency-Key',
      keyedSend,
      '1 TransactWriteItems + 1 SendMessage',
      ['TransactWriteItemsCommand', 'SendMessageCommand'],
      'one GetItem reads the key first, so a replay is answered before any other check (docs/decisions.md 47), and one UpdateItem marks the key complete after the queue accepted (12)',
    ),
    row('5f', 'POST /v1/messages rejected (missing variable)', rejectedSend, 'no calls', []),
    row('5g', 'GET /v1/messages/{id}', statusRead, '1 GetItem', ['GetItemCommand']),
    row('5k', 'GET /v1/messages/send-check, the newest send of the template counts', checked, '1 Query + 1 BatchGetItem', ['QueryCommand', 'BatchGetItemCommand']),
    {
      id: '5z',
      what: 'Scans on any request path above',
      figure: String(scans),
      target: '0',
      verdict: scans === 0 ? 'met' : 'missed',
      numbers: valueNumbers('Scans', scans, 0),
    },
  ];
}
