import { handler as listTemplates } from '../../lambdas/handlers/list-templates';
import { clearApiKeyCache } from '../../lambdas/domain/api-keys/authenticate';
import { lambdaContext } from '../../lib/local/api-gateway-event';
import { routeEvent } from '../../test/support/events';
import { describeCalls, sameCalls, type Row, type instrument } from '../harness';

type Meter = ReturnType<typeof instrument>;

/** Row 5: DynamoDB and SQS calls and consumed capacity per operation, on the real handlers. */
export async function costPerOperation(meter: Meter, apiKey: string): Promise<Row[]> {
  const list = () => listTemplates(routeEvent('listTemplates', { apiKey }), lambdaContext('listTemplates'));

  clearApiKeyCache();
  const cold = await meter.measure(list);
  const warm = await meter.measure(list);
  const all = [...cold, ...warm];

  return [
    {
      id: '5a',
      what: 'GET /v1/message-templates, key not cached',
      figure: describeCalls(cold),
      target: '1 GetItem (key) + 1 Query',
      verdict: sameCalls(cold, ['GetItemCommand', 'QueryCommand']) ? 'met' : 'missed',
    },
    {
      id: '5b',
      what: 'GET /v1/message-templates, key cached',
      figure: describeCalls(warm),
      target: '1 Query',
      verdict: sameCalls(warm, ['QueryCommand']) ? 'met' : 'missed',
    },
    {
      id: '5z',
      what: 'Scans on the request path',
      figure: String(all.filter((call) => /Scan/.test(call.command)).length),
      target: '0',
      verdict: all.some((call) => /Scan/.test(call.command)) ? 'missed' : 'met',
    },
  ];
}
