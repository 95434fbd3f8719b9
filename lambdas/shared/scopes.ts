/** API key scopes (docs/api.md#authentication). */
export const scopes = ['messages:send', 'messages:read', 'templates:read', 'webhooks:manage'] as const;
export type Scope = (typeof scopes)[number];
