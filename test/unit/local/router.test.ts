import { createRouter } from '../../../lib/local/router';

describe('local router', () => {
  const match = createRouter([
    { method: 'GET', path: '/v1/messages/{dispatchId}' },
    { method: 'GET', path: '/v1/messages/tracking-tags' },
    { method: 'POST', path: '/v1/message-templates/{templateVersionId}/preview' },
  ] as const);

  it('prefers a literal segment over a path parameter, as API Gateway does', () => {
    expect(match('GET', '/v1/messages/tracking-tags')).toEqual({ route: { method: 'GET', path: '/v1/messages/tracking-tags' }, pathParameters: null });
    expect(match('GET', '/v1/messages/abc')?.pathParameters).toEqual({ dispatchId: 'abc' });
  });

  it('decodes path parameters and matches on method', () => {
    expect(match('POST', '/v1/message-templates/a%20b/preview')?.pathParameters).toEqual({ templateVersionId: 'a b' });
    expect(match('GET', '/v1/message-templates/x/preview')).toBeUndefined();
    expect(match('GET', '/v1/messages/a/b')).toBeUndefined();
  });

  // API Gateway finds the resource first, then its method: `GET /v1/messages/delivery-status` is the
  // delivery-status resource without a GET (404), not a dispatch id that is not a UUID (422).
  it('answers a literal resource without the method as not found, not as the parameter resource beside it', () => {
    const routes = createRouter([
      { method: 'GET', path: '/v1/messages/{dispatchId}' },
      { method: 'POST', path: '/v1/messages/delivery-status' },
    ] as const);
    expect(routes('GET', '/v1/messages/delivery-status')).toBeUndefined();
    expect(routes('POST', '/v1/messages/delivery-status')?.route.path).toBe('/v1/messages/delivery-status');
    expect(routes('GET', '/v1/messages/abc')?.pathParameters).toEqual({ dispatchId: 'abc' });
  });
});
