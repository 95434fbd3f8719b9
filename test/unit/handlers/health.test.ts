import { handler } from '../../../lambdas/handlers/health';
import { lambdaContext, parseResult, routeEvent } from '../../support/events';

describe('GET /health', () => {
  it('answers 200 with exactly the contract body, without an API key', async () => {
    const { status, body } = parseResult(await handler(routeEvent('health'), lambdaContext('health')));
    expect(status).toBe(200);
    expect(body).toStrictEqual({ success: true, data: { status: 'ok', service: 'messaging-api-external' } });
  });
});
