/** API key scopes (docs/api.md#authentication). */
export const scopes = ['messages:send', 'messages:read', 'templates:read'] as const;
export type Scope = (typeof scopes)[number];
