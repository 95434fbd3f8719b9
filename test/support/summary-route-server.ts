import type { AddressInfo } from 'node:net';
import type { Server } from 'node:http';
import type { APIGatewayProxyEvent } from 'aws-lambda';
import { createApiServer, type LoadedRoute } from '../../lib/local/http-server';
import { routes } from '../../lambdas/routes';

/**
 * The local server (lib/local/http-server.ts) with one route, the tracking summary, whose handler
 * keeps each event it is handed and answers 200: what reaches a route, and what the server answers
 * itself. `handed` is emptied before each test.
 */
export function useSummaryRouteServer() {
  const handed: APIGatewayProxyEvent[] = [];
  const summary: LoadedRoute = {
    id: 'trackingSummary',
    // Answered buffered: what these tests check is what reaches the route, not how the summary
    // streams its answer (decision 229), and a buffered stub answers in one line.
    definition: { ...routes.trackingSummary, streaming: false },
    handler: (event) => {
      handed.push(event);
      return Promise.resolve({ statusCode: 200, headers: { 'content-type': 'application/json', 'x-request-id': event.requestContext.requestId }, body: '{"items":[]}' });
    },
  };
  let server: Server;
  let base = '';
  beforeAll(async () => {
    server = createApiServer([summary], () => undefined);
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(() => new Promise((resolve) => server.close(resolve)));
  beforeEach(() => void handed.splice(0));
  return { handed, base: () => base };
}
