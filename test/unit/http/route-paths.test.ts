import { pathOf, routes } from '../../../lambdas/routes';

describe('pathOf', () => {
  it("fills a route's path parameters, encoded", () => {
    expect(pathOf(routes.getMessage, { dispatchId: '3f1c2a9e-5b7d-4c1e-9a2b-6d8e0f1a2b3c' })).toBe('/v1/messages/3f1c2a9e-5b7d-4c1e-9a2b-6d8e0f1a2b3c');
    expect(pathOf(routes.conversationMessages, { conversationId: 'a b/c' })).toBe('/v1/conversations/a%20b%2Fc/messages');
  });

  it('gives a path without parameters as it is', () => {
    expect(pathOf(routes.whatsappWebhook)).toBe('/webhooks/whatsapp');
  });

  it('refuses to build a path with a parameter missing', () => {
    const route: { path: string } = routes.getTemplate;
    expect(() => pathOf(route, {})).toThrow('/v1/message-templates/{templateId} needs its templateId parameter');
  });
});
